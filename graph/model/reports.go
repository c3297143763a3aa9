package model

import "github.com/google/uuid"

// HerdReports is Farm.reports: the farm whose reports its fields answer.
type HerdReports struct {
	FarmID uuid.UUID
}
