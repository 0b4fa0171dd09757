from numtorch.demo.digits import main

main()
