package httpapi

import (
	"embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// The dashboard is a static page and a small script, embedded in the binary
// (nothing from a CDN), that call the console API with the signed-in
// user's console token.
//
//go:embed web/index.html web/app.js
var webFS embed.FS

func (s *Server) dashboardPage(c echo.Context) error {
	b, err := webFS.ReadFile("web/index.html")
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	return c.HTMLBlob(http.StatusOK, b)
}

func (s *Server) dashboardScript(c echo.Context) error {
	b, err := webFS.ReadFile("web/app.js")
	if err != nil {
		return err
	}
	c.Response().Header().Set("X-Content-Type-Options", "nosniff")
	return c.Blob(http.StatusOK, "text/javascript; charset=utf-8", b)
}
