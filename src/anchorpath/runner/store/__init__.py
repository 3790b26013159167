"""The run state: the SQLite database, the commit of records into it (events), SimHash."""
