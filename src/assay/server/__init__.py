"""The memory server: a loopback daemon that owns the models (FastAPI app, auth, idempotent writes, hooks).

Import the pieces from their modules (:mod:`.app` needs the ``server`` extra: FastAPI); this
package itself imports nothing, so :mod:`.tables` loads with the store schema without FastAPI.
"""
