"""Synthetic AWS accounts of a chosen size, written as the AWS CLI writes them (`generate-aws`)."""
