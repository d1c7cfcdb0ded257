module github.com/deferbench/deferbench

go 1.26.0
