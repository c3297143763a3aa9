package herdbook

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/message"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/thread"
)

// visibleThreads lets a member see the farm's open threads and the private threads they
// started; OWNERs see every thread.
func visibleThreads(v *Viewer, m *ent.FarmMember) predicate.Thread {
	if m.Role == RoleOwner {
		return thread.FarmID(m.FarmID)
	}
	return thread.And(thread.FarmID(m.FarmID), thread.Or(thread.IsPrivate(false), thread.CreatedBy(v.UserID)))
}

// Threads lists a farm's threads that the viewer may read, newest first.
func (s *Service) Threads(ctx context.Context, farmID uuid.UUID) ([]*ent.Thread, error) {
	v, m, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadFarms)
	if err != nil {
		return nil, err
	}
	return s.Client(ctx).Thread.Query().Where(visibleThreads(v, m)).
		Order(ent.Desc(thread.FieldCreatedAt), ent.Desc(thread.FieldID)).All(ctx)
}

// CreateThread opens a thread. Private threads need the farm's allow_private_threads.
func (s *Service) CreateThread(ctx context.Context, farmID uuid.UUID, title string, private bool) (*ent.Thread, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeWriteFarms)
	if err != nil {
		return nil, err
	}
	var fe fieldErrors
	validateName(&fe, "title", title, 1, 200)
	if err := fe.err(); err != nil {
		return nil, err
	}
	if private {
		f, err := s.Client(ctx).Farm.Get(ctx, farmID)
		if err != nil {
			return nil, notFound(err, "farm", farmID)
		}
		if !f.AllowPrivateThreads {
			return nil, Invalid(FieldError{Field: "is_private", Message: "this farm does not allow private threads"})
		}
	}
	return s.Client(ctx).Thread.Create().SetFarmID(farmID).SetTitle(strings.TrimSpace(title)).
		SetIsPrivate(private).SetCreatedBy(v.UserID).Save(ctx)
}

// Messages lists a thread's messages, oldest first.
func (s *Service) Messages(ctx context.Context, threadID uuid.UUID) ([]*ent.Message, error) {
	if _, _, err := s.readableThread(ctx, threadID, ScopeReadFarms); err != nil {
		return nil, err
	}
	return s.Client(ctx).Message.Query().Where(message.ThreadID(threadID)).
		Order(ent.Asc(message.FieldCreatedAt), ent.Asc(message.FieldID)).All(ctx)
}

// PostMessage adds the viewer's message to a thread they can read.
func (s *Service) PostMessage(ctx context.Context, threadID uuid.UUID, body string) (*ent.Message, error) {
	v, th, err := s.readableThread(ctx, threadID, ScopeWriteFarms)
	if err != nil {
		return nil, err
	}
	var fe fieldErrors
	if !fe.prose("body", body) {
		return nil, fe.err()
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(body)); n == 0 || utf8.RuneCountInString(body) > 10000 {
		return nil, Invalid(FieldError{Field: "body", Message: "must be 1 to 10000 characters"})
	}
	return s.Client(ctx).Message.Create().SetThreadID(threadID).SetFarmID(th.FarmID).SetAuthorID(v.UserID).SetBody(body).Save(ctx)
}

// Thread returns a thread the viewer may read.
func (s *Service) Thread(ctx context.Context, id uuid.UUID) (*ent.Thread, error) {
	_, th, err := s.readableThread(ctx, id, ScopeReadFarms)
	return th, err
}

func (s *Service) readableThread(ctx context.Context, threadID uuid.UUID, scope string) (*Viewer, *ent.Thread, error) {
	if _, err := authenticate(ctx, scope); err != nil {
		return nil, nil, err
	}
	th, err := s.Client(ctx).Thread.Get(ctx, threadID)
	if err != nil {
		return nil, nil, notFound(err, "thread", threadID)
	}
	v, m, err := s.authorizeFarm(ctx, th.FarmID, RoleReader, scope)
	if err != nil {
		return nil, nil, err
	}
	if ok, err := s.Client(ctx).Thread.Query().Where(thread.ID(threadID), visibleThreads(v, m)).Exist(ctx); err != nil || !ok {
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, Errorf(ENOTFOUND, "thread %s not found", threadID)
	}
	return v, th, nil
}
