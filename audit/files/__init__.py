"""Files: the one reader of user files, the one JSON serialiser, atomic writes, locked report
sets and scratch directories."""
