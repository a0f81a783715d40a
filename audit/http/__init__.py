"""Talking to scoring services over HTTP: the client (``client``) and curl repros (``curl``)."""
