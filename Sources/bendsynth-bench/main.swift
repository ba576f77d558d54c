BenchTool.main()
