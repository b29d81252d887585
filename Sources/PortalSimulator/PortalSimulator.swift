// The simulated hotspot (in progress).
