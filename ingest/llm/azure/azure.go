// Package azure is the Azure OpenAI adapter: the Chat Completions body and
// response on POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…,
// authenticated by the `api-key` header. The request's model is the
// deployment name.
package azure

import (
	"net/http"
	"net/url"

	"github.com/governance-gateway/gateway/ingest/llm"
	"github.com/governance-gateway/gateway/ingest/llm/openai"
)

// APIVersion is the Azure OpenAI data-plane API version the adapter speaks.
const APIVersion = "2024-10-21"

// New returns the adapter for the resource endpoint cfg.BaseURL (e.g.
// https://my-resource.openai.azure.com); it has no default.
func New(cfg llm.Config) *openai.Adapter {
	base := cfg.BaseURL
	return openai.NewCompatible(llm.AzureOpenAI, cfg,
		func(model string) string {
			return base + "/openai/deployments/" + url.PathEscape(model) + "/chat/completions?api-version=" + APIVersion
		},
		func(h http.Header, key string) { h.Set("api-key", key) })
}
