package herdbook

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// FarmSettings is the shape of the lead's farm settings (being built on main); this seam is
// replaced by the real one when main is merged.
type FarmSettings struct {
	TimeZone        string
	Location        *time.Location
	WithdrawalRules string
	Organic         bool
}

func (s *Service) settings(ctx context.Context, farmID uuid.UUID) (FarmSettings, error) {
	return FarmSettings{TimeZone: "UTC", Location: time.UTC}, nil
}
