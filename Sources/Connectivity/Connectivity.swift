// Captive-portal detection on libcurl (in progress).
