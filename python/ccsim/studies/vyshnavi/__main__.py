"""`python -m ccsim.studies.vyshnavi [FOLDER]`: write the wireless parts' sweep files."""

from ccsim.studies.vyshnavi.wlan import main

raise SystemExit(main())
