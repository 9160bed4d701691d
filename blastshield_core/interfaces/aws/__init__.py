"""The AWS side of the interfaces: the account commands, the profiles' sessions, live collection."""
