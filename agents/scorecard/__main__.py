from agents.apps.scorecard import main

main()
