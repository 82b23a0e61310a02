"""Jobs and their durability: a job's lifecycle (job.py), where jobs are kept (store.py), the
SQLite journal (journal.py) and restoring a crashed run's jobs (recovery.py).

May import: the engine's types.py and errors.py, and the catalog room.
"""
