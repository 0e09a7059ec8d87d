from reclaim.cli.main import app

app(prog_name="reclaim")
