from gateway.entry import main

main()
