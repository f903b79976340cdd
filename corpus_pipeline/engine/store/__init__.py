"""The stage's store: its directory's lifecycle on a disk or an object store (work area, fingerprint,
output guard, task commit, manifest, publish) and the names of its files. Imports nothing else of engine/."""
