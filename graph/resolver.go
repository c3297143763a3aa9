package graph

import (
	herdbook "github.com/herdbook/herdbook"
)

// Resolver resolves every field through the service layer; resolvers are one line each.
type Resolver struct {
	svc *herdbook.Service
}

// NewResolver returns the root resolver over svc.
func NewResolver(svc *herdbook.Service) *Resolver { return &Resolver{svc: svc} }
