package results

// A figure that is not known is never counted as zero: these say when a recorded figure is known.

// CostUntracked reports whether a resolved config (run.json's, or a trajectory's info.config)
// runs its model with model.cost_tracking: ignore_errors, where a call whose price is unknown
// costs 0: a cost of 0 after model calls is then not a known cost.
func CostUntracked(config map[string]any) bool {
	m, _ := config["model"].(map[string]any)
	v, _ := m["cost_tracking"].(string)
	return v == "ignore_errors"
}

// KnownCost reports whether an instance's cost, after calls model calls, is a known figure: it is,
// unless cost tracking was off (CostUntracked) and the calls were counted at 0.
func KnownCost(cost float64, calls int, untracked bool) bool {
	return !(untracked && cost == 0 && calls > 0)
}

// KnownTokens reports whether an instance's token counts, after calls model calls, are known:
// every model call uses tokens, so none counted after some calls means the provider reported no
// usage.
func KnownTokens(input, output, calls int) bool {
	return calls == 0 || input+output > 0
}
