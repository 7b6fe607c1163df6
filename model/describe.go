package model

import "strings"

// Description says how a model would be called, without calling anything or fetching any
// credentials: for `config show --model`.
type Description struct {
	Model       string
	Provider    string // the provider's name ("Google AI Studio (Gemini API)")
	API         string // the wire ("Gemini generateContent")
	Endpoint    string // the URL of the calls
	EndpointSet string // where a non-default base came from ("$XAI_API_BASE", "model.base_url")
	Credentials string // where the key or credentials come from, and whether they are set
	Stream      bool
	Price       Price
	HavePrice   bool
}

// Describe resolves cfg's model as New would, from the environment env.
func Describe(cfg Config, env func(string) string) (Description, error) {
	ep, err := resolve(cfg, env)
	if err != nil {
		return Description{}, err
	}
	d := Description{Model: cfg.ModelName, Provider: ep.label, API: kindNames[ep.kind]}
	if ep.kind == kindReplay {
		d.Provider, d.Endpoint = "replay of recorded trajectories", ep.replayDir
		return d, nil
	}
	kw, err := splitKwargs(cfg.ModelKwargs)
	if err != nil {
		return Description{}, err
	}
	d.Stream = kw.stream
	if kw.baseURL != "" && cfg.BaseURL == "" {
		cfg.BaseURL = kw.baseURL
	}
	if cfg.BaseURL != "" {
		ep.baseURL, ep.baseFrom = cfg.BaseURL, "model.base_url"
	}
	d.EndpointSet = ep.baseFrom
	if ep.cloud == cloudVertex && ep.project == "" {
		ep.project = "PROJECT" // the credentials' project, known once they are loaded
	}
	switch {
	case ep.baseURL == "":
		d.Endpoint = "none: " + baseHint(ep)
	default:
		call, err := newWire(ep, kw, wireOptions{})
		if err != nil {
			return Description{}, err
		}
		d.Endpoint = call.url
		if ep.cloud == cloudBedrock {
			d.Endpoint += " (region " + ep.region + ")"
		}
	}
	switch ep.cloud {
	case cloudBedrock:
		d.Credentials = describeBedrockCredentials(cfg, env)
	case cloudVertex:
		d.Credentials = describeVertexCredentials(cfg, env)
	case cloudAzure:
		d.Credentials = describeAzureCredentials(cfg, ep, env)
	default:
		key, keyEnv := apiKey(cfg, ep, env)
		switch {
		case keyEnv == "" && key == "":
			d.Credentials = "none"
		case key != "":
			d.Credentials = describeKey(cfg, keyEnv) + " (set)"
		default:
			d.Credentials = "$" + strings.Join(keyEnvs(cfg, ep), " or $") + " (not set)"
		}
	}
	d.Price, d.HavePrice, err = priceOf(cfg, ep)
	return d, err
}

// priceOf looks a model's price up as New does.
func priceOf(cfg Config, ep endpoint) (Price, bool, error) {
	m, ok, err := LookupPrice(cfg, cfg.ModelName, ep.apiModel)
	return m.Price, ok, err
}
