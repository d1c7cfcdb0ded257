module github.com/deferbench/deferbench

go 1.25.0
