package herdbook

import (
	"context"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"unicode/utf8"

	"entgo.io/contrib/entgql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/ent/notificationpreference"
	"github.com/herdbook/herdbook/ent/user"
)

// NotificationStatuses lists the statuses of a notification: PENDING until a delivery
// attempt succeeds (SENT) or the attempts run out (FAILED).
var NotificationStatuses = []string{"FAILED", "PENDING", "SENT"}

// NotificationChannels lists the channels a notification goes out on.
var NotificationChannels = []string{"EMAIL", "IN_APP", "SMS"}

// NotificationQuery filters and pages a farm's notification list.
type NotificationQuery struct {
	Page
	Status *string
}

// notificationScope restricts q to what the member may read: their own notifications, or,
// for an OWNER, every member's, so that an owner can see why someone heard nothing.
func notificationScope(q *ent.NotificationQuery, v *Viewer, m *ent.FarmMember) *ent.NotificationQuery {
	if m.Role != RoleOwner {
		q.Where(notification.UserID(v.UserID))
	}
	return q
}

// Notifications lists a farm's notifications, oldest first (created_at, then id), with the
// number that match. It costs three queries whatever the page size.
func (s *Service) Notifications(ctx context.Context, farmID uuid.UUID, q NotificationQuery) ([]*ent.Notification, int, error) {
	v, m, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords)
	if err != nil {
		return nil, 0, err
	}
	skip, limit, err := s.bounds(q.Page)
	fe := fieldErrors(ErrorFields(err))
	if q.Status != nil && !slices.Contains(NotificationStatuses, *q.Status) {
		fe.add("status", "must be one of %s", strings.Join(NotificationStatuses, ", "))
	}
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	query := notificationScope(s.Client(ctx).Notification.Query().Where(notification.FarmID(farmID)), v, m)
	if q.Status != nil {
		query.Where(notification.StatusEQ(notification.Status(*q.Status)))
	}
	total, err := query.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []*ent.Notification{}, total, err
	}
	items, err := query.Order(ent.Asc(notification.FieldCreatedAt), ent.Asc(notification.FieldID)).
		Offset(skip).Limit(limit).All(ctx)
	return items, total, err
}

// NotificationFilter narrows the GraphQL notification connection.
type NotificationFilter struct {
	Status *notification.Status
	Unread *bool // true: only unread; false: only read
	Mine   *bool // true: only the viewer's own, also for an OWNER
}

// NotificationConnection pages through a farm's notifications, newest first unless ordered
// otherwise. Members see their own; OWNERs see every member's unless Mine is set.
func (s *Service) NotificationConnection(ctx context.Context, farmID uuid.UUID, w Window, order *ent.NotificationOrder, f NotificationFilter) (*ent.NotificationConnection, error) {
	v, m, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if f.Status != nil && notification.StatusValidator(*f.Status) != nil {
		return nil, Invalid(FieldError{Field: "status", Message: "must be one of " + strings.Join(NotificationStatuses, ", ")})
	}
	q := notificationScope(s.Client(ctx).Notification.Query().Where(notification.FarmID(farmID)), v, m)
	if f.Mine != nil && *f.Mine {
		q.Where(notification.UserID(v.UserID))
	}
	if f.Status != nil {
		q.Where(notification.StatusEQ(*f.Status))
	}
	if f.Unread != nil {
		if *f.Unread {
			q.Where(notification.ReadAtIsNil())
		} else {
			q.Where(notification.ReadAtNotNil())
		}
	}
	if order == nil {
		order = &ent.NotificationOrder{Direction: entgql.OrderDirectionDesc, Field: ent.NotificationOrderFieldCreatedAt}
	}
	first, last := w.page()
	return q.Paginate(ctx, w.After, first, w.Before, last, ent.WithNotificationOrder(order))
}

// MarkNotificationsRead marks the viewer's own notifications of a farm read: those named by
// ids, or all of them when ids is nil. Others' notifications are never touched, also for an
// OWNER. It returns how many changed.
func (s *Service) MarkNotificationsRead(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) (int, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords)
	if err != nil {
		return 0, err
	}
	if len(ids) > MaxConnectionPage {
		return 0, Invalid(FieldError{Field: "ids", Message: fmt.Sprintf("must have at most %d ids", MaxConnectionPage)})
	}
	var n int
	err = s.inTx(ctx, func(ctx context.Context) (err error) {
		u := s.Client(ctx).Notification.Update().Where(
			notification.FarmID(farmID), notification.UserID(v.UserID), notification.ReadAtIsNil())
		if ids != nil {
			u.Where(notification.IDIn(ids...))
		}
		n, err = u.SetReadAt(s.nowUTC()).Save(ctx)
		return err
	})
	return n, err
}

// Preference sources: where the effective channels of a user came from.
const (
	PreferenceFromFarm    = "FARM"    // the user's row for this farm
	PreferenceFromDefault = "DEFAULT" // the user's row for every farm
	PreferenceFromRole    = "ROLE"    // no row: the defaults of the member's role
)

// NotificationPreferences are the channels a user hears on, and where that choice came from.
type NotificationPreferences struct {
	FarmID       *uuid.UUID // nil: the user's default for every farm
	Email        bool
	SMS          bool
	InApp        bool
	Source       string
	EmailAddress *string // where EMAIL goes; nil: no EMAIL is sent
	PhoneNumber  string  // where SMS goes
}

// NotificationPreferencesInput sets a user's channels for one farm or (FarmID nil) for every
// farm without its own choice. EmailAddress, when set, changes the user's email address;
// null removes it.
type NotificationPreferencesInput struct {
	Email        bool
	SMS          bool
	InApp        bool
	EmailAddress Optional[string]
}

// roleChannels are the channels of a member who chose none: everyone hears in the app;
// those who can act on tasks (EDITOR and above) also by email. SMS costs money, so it is
// only ever sent to those who ask for it.
func roleChannels(r Role) (email, sms, inApp bool) {
	return roleRank(r) >= roleRank(RoleEditor), false, true
}

// ValidateEmail checks an email address: one plain address, no display name.
func ValidateEmail(field, addr string) error {
	if err := CheckText(field, addr); err != nil {
		return err
	}
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Address != addr || a.Name != "" || len(addr) > 254 {
		return Invalid(FieldError{Field: field, Message: "must be a plain email address such as name@example.com"})
	}
	return nil
}

// authorizePreferences checks who may read or set preferences: any authenticated user with
// read:records for their default, and an active member of the farm for a farm's.
func (s *Service) authorizePreferences(ctx context.Context, farmID *uuid.UUID) (*Viewer, Role, error) {
	if farmID == nil {
		v, err := authenticate(ctx, ScopeReadRecords)
		return v, RoleReader, err
	}
	v, m, err := s.authorizeFarm(ctx, *farmID, RoleReader, ScopeReadRecords)
	if err != nil {
		return nil, "", err
	}
	return v, m.Role, nil
}

// NotificationPreferences returns the viewer's effective channels for a farm, or their
// default when farmID is nil.
func (s *Service) NotificationPreferences(ctx context.Context, farmID *uuid.UUID) (NotificationPreferences, error) {
	v, role, err := s.authorizePreferences(ctx, farmID)
	if err != nil {
		return NotificationPreferences{}, err
	}
	return s.preferences(ctx, v.UserID, farmID, role)
}

func (s *Service) preferences(ctx context.Context, userID uuid.UUID, farmID *uuid.UUID, role Role) (NotificationPreferences, error) {
	c := s.Client(ctx)
	u, err := c.User.Get(ctx, userID)
	if err != nil {
		return NotificationPreferences{}, notFound(err, "user", userID)
	}
	keys := []uuid.UUID{uuid.Nil}
	if farmID != nil {
		keys = append(keys, *farmID)
	}
	rows, err := c.NotificationPreference.Query().Where(
		notificationpreference.UserID(userID), notificationpreference.FarmIDIn(keys...)).All(ctx)
	if err != nil {
		return NotificationPreferences{}, err
	}
	p := NotificationPreferences{FarmID: farmID, EmailAddress: u.Email, PhoneNumber: u.PhoneNumberLocal}
	p.Email, p.SMS, p.InApp = roleChannels(role)
	p.Source = PreferenceFromRole
	applyPreference(&p, rows)
	return p, nil
}

// applyPreference overrides the role's channels with the user's rows: the farm's row wins
// over the default row (nil farm id).
func applyPreference(p *NotificationPreferences, rows []*ent.NotificationPreference) {
	var def, farm *ent.NotificationPreference
	for _, r := range rows {
		if r.FarmID == uuid.Nil {
			def = r
		} else {
			farm = r
		}
	}
	switch {
	case farm != nil:
		p.Email, p.SMS, p.InApp, p.Source = farm.Email, farm.Sms, farm.InApp, PreferenceFromFarm
	case def != nil:
		p.Email, p.SMS, p.InApp, p.Source = def.Email, def.Sms, def.InApp, PreferenceFromDefault
	}
}

// SetNotificationPreferences stores the viewer's channels for a farm, or their default when
// farmID is nil, and optionally their email address.
func (s *Service) SetNotificationPreferences(ctx context.Context, farmID *uuid.UUID, in NotificationPreferencesInput) (NotificationPreferences, error) {
	v, role, err := s.authorizePreferences(ctx, farmID)
	if err != nil {
		return NotificationPreferences{}, err
	}
	if a := in.EmailAddress.Value; a != nil {
		if err := ValidateEmail("emailAddress", *a); err != nil {
			return NotificationPreferences{}, err
		}
	}
	key := uuid.Nil
	if farmID != nil {
		key = *farmID
	}
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		if in.EmailAddress.Set {
			u := c.User.UpdateOneID(v.UserID)
			if in.EmailAddress.Value == nil {
				u.ClearEmail()
			} else {
				u.SetEmail(*in.EmailAddress.Value)
			}
			if err := u.Exec(ctx); err != nil {
				return notFound(err, "user", v.UserID)
			}
		}
		return c.NotificationPreference.Create().SetUserID(v.UserID).SetFarmID(key).
			SetEmail(in.Email).SetSms(in.SMS).SetInApp(in.InApp).
			OnConflictColumns(notificationpreference.FieldUserID, notificationpreference.FieldFarmID).
			Update(func(u *ent.NotificationPreferenceUpsert) {
				u.UpdateEmail().UpdateSms().UpdateInApp().UpdateUpdatedAt()
			}).Exec(ctx)
	})
	if err != nil {
		return NotificationPreferences{}, err
	}
	return s.preferences(ctx, v.UserID, farmID, role)
}

// SetUserEmail sets or (empty) removes a user's email address; for administrators.
func (s *Service) SetUserEmail(ctx context.Context, userID uuid.UUID, addr string) error {
	u := s.Client(ctx).User.Update().Where(user.ID(userID))
	if addr == "" {
		u.ClearEmail()
	} else {
		if err := ValidateEmail("email", addr); err != nil {
			return err
		}
		u.SetEmail(addr)
	}
	n, err := u.Save(ctx)
	if err == nil && n == 0 {
		return Errorf(ENOTFOUND, "user %s not found", userID)
	}
	return err
}

// truncate cuts s to at most n runes, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
