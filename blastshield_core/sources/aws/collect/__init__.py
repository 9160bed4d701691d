"""Collect: read-only boto3 calls that write an account in the file layout the importer reads.

The only place on the read side that imports boto3 or botocore."""
