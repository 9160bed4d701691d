"""Actions on an AWS account: plan, apply, verify by re-reading, release."""
