// HotspotHelperKit (in progress).
