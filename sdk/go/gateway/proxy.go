package gateway

import "net/http"

// ProxyConfig is what an OpenAI client needs to go through the gateway's
// proxy: the base URL to use instead of api.openai.com/v1 and the headers
// to add. The client keeps its own upstream key.
type ProxyConfig struct {
	BaseURL string
	Headers http.Header
}

// Proxy returns the proxy settings for mode ("observe", "guard", "verify",
// "full"; "" keeps the gateway's default) and the optional dimensions.
// With github.com/openai/openai-go:
//
//	p := gw.Proxy("guard", gateway.Dimensions{UseCase: "support"})
//	opts := []option.RequestOption{option.WithBaseURL(p.BaseURL)}
//	for k, v := range p.Headers { opts = append(opts, option.WithHeader(k, v[0])) }
func (c *Client) Proxy(mode string, d Dimensions) ProxyConfig {
	h := http.Header{}
	h.Set("X-Service-Api-Key", c.key)
	if mode != "" {
		h.Set("X-Service-Mode", mode)
	}
	for k, v := range d.headers() {
		if v != "" {
			h.Set(k, v)
		}
	}
	return ProxyConfig{BaseURL: c.base + "/v1", Headers: h}
}
