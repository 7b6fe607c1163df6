package dockerenv

// KillState returns c's count of acknowledged kills and whether the last kill went
// unacknowledged (see killAll).
func KillState(c *Container) (kills int, lost bool) {
	c.killMu.Lock()
	defer c.killMu.Unlock()
	return c.kills, c.killsLost
}

// SetKillState overwrites what c knows of its kills, as a lost acknowledgement would leave it.
func SetKillState(c *Container, kills int, lost bool) {
	c.killMu.Lock()
	defer c.killMu.Unlock()
	c.kills, c.killsLost = kills, lost
}
