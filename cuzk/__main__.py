from cuzk.cli.main import main

raise SystemExit(main())
