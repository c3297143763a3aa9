// The user's choices on this device: language, weight unit, date format.
import { useState } from 'preact/hooks';
import { prefs, setPrefs, t, type Prefs } from '../i18n';
import { navigate } from '../router';

export function Settings() {
  const [p, setP] = useState<Prefs>(prefs);
  const save = (e: Event) => { e.preventDefault(); setPrefs(p); navigate('/settings', true); };
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">{t('settings')}</h1>
      <form class="card" onSubmit={save}>
        <label>{t('language')}<select id="pref-lang" value={p.lang} onChange={(e) => setP({ ...p, lang: e.currentTarget.value as Prefs['lang'] })}>
          <option value="en">English</option><option value="fr">Français</option></select></label>
        <label>{t('units')}<select id="pref-unit" value={p.unit} onChange={(e) => setP({ ...p, unit: e.currentTarget.value as Prefs['unit'] })}>
          <option value="kg">kg</option><option value="lb">lb</option></select></label>
        <label>{t('dateFormat')}<select id="pref-dates" value={p.dates} onChange={(e) => setP({ ...p, dates: e.currentTarget.value as Prefs['dates'] })}>
          <option value="iso">{t('dateISO')}</option><option value="local">{t('dateLocal')}</option></select></label>
        <button type="submit" id="pref-save">{t('save')}</button>
      </form>
    </section>
  );
}
