package kubeenv

// ForceSPDY makes the executors skip WebSocket (tests compare the two).
func SetForceSPDY(v bool) { forceSPDY = v }
