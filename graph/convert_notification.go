package graph

import (
	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph/model"
)

// The functions below only translate between the service's notification values and the
// graph's models.

func preferencesIn(in model.ChannelPreferencesInput) herdbook.NotificationPreferencesInput {
	p := herdbook.NotificationPreferencesInput{Email: in.Email, SMS: in.Sms, InApp: in.InApp}
	if v, ok := in.EmailAddress.ValueOK(); ok {
		p.EmailAddress = herdbook.Optional[string]{Set: true, Value: v}
	}
	return p
}

func preferencesOut(p herdbook.NotificationPreferences, err error) (*model.ChannelPreferences, error) {
	if err != nil {
		return nil, err
	}
	return &model.ChannelPreferences{FarmID: p.FarmID, Email: p.Email, Sms: p.SMS, InApp: p.InApp, Source: model.PreferenceSource(p.Source),
		EmailAddress: p.EmailAddress, PhoneNumber: p.PhoneNumber}, nil
}
