// The daemon (in progress).
