// Farm administration: the farm's own settings (time zone, withdrawal rules, organic,
// breeding ages, calving interval, test tags; docs/settings.md) and its members and roles.
// An OWNER edits both; other members read them (the server refuses them anyway).
import { useQuery } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import {
  FarmSettingsDocument, FarmSettingsSaveDocument, MemberAddDocument, MemberRemoveDocument, MemberRoleDocument,
  MembersDocument, type FarmMemberRole, type WithdrawalRuleSet,
} from '../graphql/generated';
import { showDate, t, type Key } from '../i18n';
import { write } from '../outbox';
import { Failed } from './Farms';

const ROLES: FarmMemberRole[] = ['OWNER', 'EDITOR', 'READER'];
const RULES: WithdrawalRuleSet[] = ['GB_VMR_2013', 'EU_2019_6'];

/** days reads an optional whole number of days: empty is null (unset, not checked). */
const days = (v: string): number | null => (v.trim() === '' ? null : Number(v));
const str = (n: number | null | undefined): string => (n == null ? '' : String(n));

function outcome(out: { queued?: boolean; code?: string; message?: string }): string {
  return out.queued ? t('queued') : out.code ? `${t('refused')}: ${out.message}` : t('saved');
}

export function FarmSettings({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: FarmSettingsDocument, variables: { farmID } });
  const s = data?.farm?.settings;
  const [zone, setZone] = useState('');
  const [rules, setRules] = useState('');
  const [organic, setOrganic] = useState(false);
  const [testTags, setTestTags] = useState(false);
  const [female, setFemale] = useState('');
  const [male, setMale] = useState('');
  const [interval, setGap] = useState('');
  const [msg, setMsg] = useState('');
  useEffect(() => {
    if (!s) return;
    setZone(s.timeZone ?? ''); setRules(s.withdrawalRules ?? ''); setOrganic(s.organic); setTestTags(s.allowTestTags);
    setFemale(str(s.minimumBreedingAgeDays.female)); setMale(str(s.minimumBreedingAgeDays.male));
    setGap(str(s.minimumCalvingIntervalDays));
  }, [s]);
  if (error) return <Failed message={error.message} />;
  if (!data?.farm || !s) return <p aria-busy="true">{t('loading')}</p>;
  const me = data.farm.members?.find((m) => m.userID === data.viewer.id);
  const owner = me?.role === 'OWNER';
  const save = async (e: Event) => {
    e.preventDefault();
    const out = await write(`${t('farmSettings')} ${data.farm!.name}`, FarmSettingsSaveDocument, {
      input: {
        farmID, timeZone: zone.trim() || null, withdrawalRules: (rules || null) as WithdrawalRuleSet | null,
        organic, allowTestTags: testTags, minimumBreedingAgeFemaleDays: days(female),
        minimumBreedingAgeMaleDays: days(male), minimumCalvingIntervalDays: days(interval),
      },
    });
    setMsg(outcome(out));
    if (!out.code && !out.queued) again({ requestPolicy: 'network-only' });
  };
  return (
    <section aria-labelledby="fs-title">
      <h1 id="fs-title">{t('farmSettings')}</h1>
      <p class="muted">{data.farm.name} · {s.updatedAt ? `${t('lastChanged')} ${showDate(s.updatedAt)}` : t('neverSet')}</p>
      {!owner && <p class="note" id="fs-readonly">{t('ownerOnly')}</p>}
      <form class="card" onSubmit={save} id="fs-form">
        <fieldset disabled={!owner}>
          <legend class="sr">{t('farmSettings')}</legend>
          <label>{t('timeZone')}<input id="fs-zone" type="text" autoComplete="off" placeholder="Europe/London" value={zone} onInput={(e) => setZone(e.currentTarget.value)} /></label>
          <label>{t('withdrawalRules')}<select id="fs-rules" value={rules} onChange={(e) => setRules(e.currentTarget.value)}>
            <option value="">{t('unset')}</option>{RULES.map((r) => <option key={r} value={r}>{t(`rules_${r}` as Key)}</option>)}
          </select></label>
          <label class="check"><input id="fs-organic" type="checkbox" checked={organic} onChange={(e) => setOrganic(e.currentTarget.checked)} />{t('organic')}</label>
          <label class="check"><input id="fs-test-tags" type="checkbox" checked={testTags} onChange={(e) => setTestTags(e.currentTarget.checked)} />{t('allowTestTags')}</label>
          <div class="pair">
            <label>{t('breedingAgeFemale')}<input id="fs-female" type="number" min="1" max="3650" step="1" inputMode="numeric" value={female} onInput={(e) => setFemale(e.currentTarget.value)} /></label>
            <label>{t('breedingAgeMale')}<input id="fs-male" type="number" min="1" max="3650" step="1" inputMode="numeric" value={male} onInput={(e) => setMale(e.currentTarget.value)} /></label>
          </div>
          <label>{t('calvingInterval')}<input id="fs-interval" type="number" min="1" max="1000" step="1" inputMode="numeric" value={interval} onInput={(e) => setGap(e.currentTarget.value)} /></label>
          <p class="note">{t('unsetNote')}</p>
          <button type="submit" id="fs-save">{t('save')}</button>
        </fieldset>
        {msg && <p role="status" id="fs-status">{msg}</p>}
      </form>
    </section>
  );
}

export function Members({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: MembersDocument, variables: { farmID } });
  const [phone, setPhone] = useState('');
  const [role, setRole] = useState<FarmMemberRole>('READER');
  const [msg, setMsg] = useState('');
  if (error) return <Failed message={error.message} />;
  if (!data?.farm) return <p aria-busy="true">{t('loading')}</p>;
  const members = (data.farm.members ?? []).filter((m) => m.isActive);
  const owner = members.find((m) => m.userID === data.viewer.id)?.role === 'OWNER';
  const done = (out: { queued?: boolean; code?: string; message?: string }) => {
    setMsg(outcome(out));
    if (!out.code && !out.queued) again({ requestPolicy: 'network-only' });
    return !out.code;
  };
  const add = async (e: Event) => {
    e.preventDefault();
    if (done(await write(`${t('addMember')} ${phone}`, MemberAddDocument, { input: { farmID, phoneNumberLocal: phone.trim(), role } }))) setPhone('');
  };
  const setMemberRole = async (id: string, to: FarmMemberRole) => { done(await write(`${t('role')} ${to}`, MemberRoleDocument, { input: { id, role: to } })); };
  const remove = async (id: string, who: string) => {
    done(await write(`${t('removeMember')} ${who}`, MemberRemoveDocument, { input: { id } }));
  };
  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">{t('members')}</h1>
      <p class="muted">{data.farm.name}</p>
      {!owner && <p class="note">{t('ownerOnly')}</p>}
      <table class="table" id="member-list">
        <caption class="sr">{t('members')}</caption>
        <thead><tr><th scope="col">{t('name')}</th><th scope="col">{t('phone')}</th><th scope="col">{t('role')}</th>{owner && <th scope="col"><span class="sr">{t('removeMember')}</span></th>}</tr></thead>
        <tbody>{members.map((m) => {
          const who = m.user.fullName || m.user.phoneNumberLocal;
          return (
            <tr key={m.id}>
              <td>{m.user.fullName ?? '—'}{m.userID === data.viewer.id && <small class="muted"> ({t('you')})</small>}</td>
              <td>{m.user.phoneNumberLocal}</td>
              <td>{owner ? (
                <select aria-label={`${t('role')}: ${who}`} value={m.role} onChange={(e) => void setMemberRole(m.id, e.currentTarget.value as FarmMemberRole)}>
                  {ROLES.map((r) => <option key={r} value={r}>{t(`role_${r}` as Key)}</option>)}
                </select>
              ) : t(`role_${m.role}` as Key)}</td>
              {owner && <td><button type="button" class="secondary" aria-label={`${t('removeMember')}: ${who}`} disabled={m.userID === data.viewer.id} onClick={() => void remove(m.id, who)}>✕</button></td>}
            </tr>
          );
        })}</tbody>
      </table>
      {msg && <p role="status" id="member-status">{msg}</p>}
      {owner && (
        <form class="card" onSubmit={add} id="member-add">
          <h2>{t('addMember')}</h2>
          <p class="note">{t('addMemberNote')}</p>
          <label>{t('phone')}<input id="member-phone" type="tel" autoComplete="off" required value={phone} onInput={(e) => setPhone(e.currentTarget.value)} /></label>
          <label>{t('role')}<select id="member-role" value={role} onChange={(e) => setRole(e.currentTarget.value as FarmMemberRole)}>
            {ROLES.map((r) => <option key={r} value={r}>{t(`role_${r}` as Key)}</option>)}
          </select></label>
          <button type="submit" id="member-save">{t('addMember')}</button>
        </form>
      )}
    </section>
  );
}
