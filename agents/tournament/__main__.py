from agents.apps.tournament import main

main()
