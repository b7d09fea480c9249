from agents.apps.serve import main  # the "web" extra is needed from here on

main()
