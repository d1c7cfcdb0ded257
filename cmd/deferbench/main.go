package main

import "os"

func main() {
	if code, ok := countChild(os.Args[1:], os.Stdout, os.Stderr); ok { // the hidden mode of the count tier
		os.Exit(code)
	}
	os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}
