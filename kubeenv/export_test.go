package kubeenv

// SetForceSPDY makes the executors skip WebSocket, so that tests cover the SPDY fallback.
func SetForceSPDY(v bool) { forceSPDY = v }
