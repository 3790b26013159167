from anchorpath.cli import main

main()
