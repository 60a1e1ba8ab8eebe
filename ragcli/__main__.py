from ragcli.cli import main

main()
