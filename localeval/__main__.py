from localeval.cli.main import app

app()
