import BendApp
BendApp.main()
