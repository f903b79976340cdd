"""The executors and what runs on them: task plans, one task of a chain, the local and Spark executors,
the Spark session and its DataFrame I/O through the store's task commit. Imports engine/store/ only."""
