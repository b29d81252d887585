// NetworkManager over D-Bus (in progress).
