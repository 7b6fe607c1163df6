package dockerenv

import (
	"context"
	"fmt"

	"github.com/moby/moby/client"
)

// Gateway is the address at which the containers of network (a network name; "" or "bridge":
// the engine's default bridge) reach the engine's host: the network's gateway. The model proxy
// of installed agents binds it (docs/agents.md).
func (e *Engine) Gateway(ctx context.Context, network string) (string, error) {
	if network == "" || network == "default" {
		network = "bridge"
	}
	if network == "none" || network == "host" {
		return "", fmt.Errorf("docker network %q: an installed agent reaches the model proxy over a bridge network; use --network bridge (the default)", network)
	}
	ctx, cancel := context.WithTimeout(ctx, engineCallTimeout)
	defer cancel()
	res, err := e.cli.NetworkInspect(ctx, network, client.NetworkInspectOptions{})
	if err != nil {
		return "", fmt.Errorf("docker network %s of %s: %w", network, e.Host(), err)
	}
	for _, c := range res.Network.IPAM.Config {
		if c.Gateway.IsValid() && c.Gateway.Is4() {
			return c.Gateway.String(), nil
		}
	}
	// Engines that leave the gateway out give the bridge the subnet's first address.
	for _, c := range res.Network.IPAM.Config {
		if c.Subnet.IsValid() && c.Subnet.Addr().Is4() {
			return c.Subnet.Masked().Addr().Next().String(), nil
		}
	}
	return "", fmt.Errorf("docker network %s of %s has no IPv4 gateway: give the proxy's address with SWEBENCH_RUN_PROXY_LISTEN", network, e.Host())
}
