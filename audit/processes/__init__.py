"""Processes: the one owner of child process trees (spawn, group kill, subreaper) and the
reading of a failed child's stderr."""
