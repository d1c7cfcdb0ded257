package main

import "os"

func main() { os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr)) }
