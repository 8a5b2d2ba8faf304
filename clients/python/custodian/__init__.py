"""Custodian's client for plugin tools written in Python.

- ``custodian.fit``: the platform's token estimate (``weigh``) and the fitted views of a document,
  a diff or a JSON value, byte for byte as the service computes them.
- ``custodian.records``: the records API from a call's ``_meta`` (``Records.from_meta``), results
  offloading, files between tools, and the agent records API (``AgentRecords``).
"""

__version__ = "0.1.0"
