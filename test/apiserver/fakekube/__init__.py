"""Support package of the fake kube-apiserver (test/apiserver/apiserver.py)."""
