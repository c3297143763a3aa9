package main

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/seed"
)

func (e env) adminSeed(ctx context.Context, args []string) error {
	a := e.newAdmin("admin seed")
	owner := a.fs.String("owner", "", "user id or phone number made OWNER of every seeded farm (created when a phone number is unknown)")
	farms := a.fs.Int("farms", 1, "number of farms")
	animals := a.fs.Int("animals", 100, "animals per farm")
	groups := a.fs.Int("groups", 5, "groups per farm")
	records := a.fs.Int("records", 200, "records per farm")
	items := a.fs.Int("items", 2, "items per record (every item carries a birth_history fact)")
	seedValue := a.fs.Uint64("seed", 1, "random seed: the same seed gives the same data shape")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	for name, v := range map[string]int{"farms": *farms, "animals": *animals, "groups": *groups, "records": *records, "items": *items} {
		if v < 0 || v > 10_000_000 {
			return fmt.Errorf("--%s must be between 0 and 10000000", name)
		}
	}
	var ownerID uuid.UUID
	if *owner != "" {
		ownerID, err = userRef(ctx, svc, *owner)
		if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
			u, cerr := svc.CreateUser(ctx, herdbook.UserInput{PhoneNumberLocal: *owner})
			if cerr != nil {
				return cerr
			}
			ownerID, err = u.ID, nil
		}
		if err != nil {
			return err
		}
	}
	start := time.Now()
	progress := e.stderr
	if a.json {
		progress = nil
	}
	res, err := seed.Run(ctx, d.Client, seed.Options{
		Owner: ownerID, Farms: *farms, AnimalsPerFarm: *animals, GroupsPerFarm: *groups,
		RecordsPerFarm: *records, ItemsPerRecord: *items, Seed: *seedValue, Progress: progress,
	})
	if err != nil {
		return err
	}
	return a.print(map[string]any{"farm_ids": res.FarmIDs, "animals": res.Animals, "groups": res.Groups,
		"records": res.Records, "items": res.Items, "seconds": time.Since(start).Seconds()},
		"seeded %d farm(s), %d animals, %d groups, %d records, %d items in %s",
		len(res.FarmIDs), res.Animals, res.Groups, res.Records, res.Items, time.Since(start).Round(time.Millisecond))
}
