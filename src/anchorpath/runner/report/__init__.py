"""What a run leaves for people: the summary, report files (JSON/Markdown/HTML), the drift
alert with its bundle, and the change rate."""
