// From an empty farm to a working one (issue 31.3): a new farm, its animals one by one (born
// here, bought in, a bought-in calf), its groups, medicines with the lines of their label and
// purchases with batch and expiry, and the birth settings. The server judges every value; its
// refusals are shown under the fields they name (Field.tsx). A write that stands alone goes
// through the outbox (queued offline with its Idempotency-Key); a farm, and an animal bought
// in, are two writes the second of which needs the first's id, so they need the network.
// Loaded on demand (main.tsx): the register and the animal page never load these forms.
import { useQuery } from '@urql/preact';
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { authFetch, send } from '../client';
import {
  AnimalCreateDocument, AnimalFormDocument, BirthSettingsFormDocument, BirthSettingsSaveDocument, FarmCreateDocument, FarmZoneDocument,
  GroupCreateDocument, GroupsDocument, MedicineCreateDocument, MedicineFormDocument, MedicinePurchaseDocument, PurchaseRecordDocument,
  type FarmSpecies, type Sex,
} from '../graphql/generated';
import { prefs, showDate, showWeight, t, today, type Key } from '../i18n';
import { onOutbox, write } from '../outbox';
import { navigate } from '../router';
import { Field, invalid, judge, type Problems } from './Field';
import { Failed } from './Farms';
import { findOne, Parent } from './Forms';
import { DateInput } from './DateField';

// The forms' own strings come with their chunk, so that the first load carries only the start
// card's (i18n.ts); French has every key of English (its type says so).
const en = {
  importAnimals: 'Import animals (CSV)', importFile: 'The register as CSV', importCheck: 'Check the file', importRun: 'Import',
  importNote: 'Columns as docs/csv.md names them: tag (required), name, eid, sex, birth_date, breed, dam, sire, group, arrival, arrival_date… Nothing is written unless every row is good.',
  importChecked: 'The file is good: this is what an import would do.', importDone: 'Imported.', importProblems: 'Problems in the file, by row and column',
  importCreated: 'New animals', importUpdated: 'Animals changed', importUnchanged: 'Unchanged', importGroups: 'New groups',
  import_created: 'new', import_updated: 'changed', import_unchanged: 'unchanged', row: 'Row', column: 'Column', problem: 'Problem',
  importSession: 'Import a weigh scale session', sessionFile: 'The session file the scale exported',
  sessionNote: 'Tru-Test, Gallagher and Digi-Star session files (docs/csv.md). Each line’s animal is found by its EID or tag and its weight checked against its history; nothing is written unless every line is good.',
  sessionUnit: 'Unit of the weights', sessionDateOrder: 'How the file writes its dates', sessionDate: 'Day of the session (if the file has no dates)',
  asTheFileSays: 'As the file says', dayFirst: 'Day first (13/03/2026)', monthFirst: 'Month first (03/13/2026)',
  sessionRows: 'Weighings in the file', sessionRecorded: 'Weights recorded', sessionIgnored: 'Columns not recorded:', weighRecorded: 'recorded',
  manyAnimals: 'Many animals?', invoiceFile: 'Or the invoice as a file', proofNote: 'A purchase needs its proof: the invoice’s reference, or the invoice itself.',
  farmName: 'Farm name', species: 'Species', speciesOther: 'Which species', species_CATTLE: 'Cattle', species_SHEEP: 'Sheep', species_GOAT: 'Goats',
  species_HORSE: 'Horses', species_BISON: 'Bison', species_ELK: 'Elk', species_OTHER: 'Another species',
  needsNetworkNew: 'This needs the network: the server makes it and gives it its id.', farmSaved: 'Farm created.', createFarm: 'Create the farm',
  newFarmNote: 'You become its owner. One farm keeps one species; the time zone decides which day a record falls on.', animalSaved: 'Animal added:',
  purchaseOf: 'Purchase of', nameOptional: 'Name (optional)', eidOptional: 'EID (optional)',
  purchaseNotQueued: 'The animal waits on this device; its purchase is not recorded: add it again once online.',
  documentRefused: 'The animal and its purchase are recorded, but not the document:', damOptional: 'Dam (optional)', animalKind: 'How it came',
  kind_born: 'Born here', kind_bought: 'Bought in', kind_calf: 'Bought-in calf', purchase: 'Purchase', purchasedOn: 'Bought on',
  fromHoldingScheme: 'Came from: holding scheme', fromHolding: 'Came from: holding number', seller: 'Seller',
  document: 'Passport or movement document (optional)', bornHereNote: 'A dam of the herd records the birth with her; a sire may be an outside sire.',
  addGroup: 'Add a group', groupSaved: 'Group added.', groupName: 'Group name', groupNote: 'Put animals in it from a day on:',
  medicineSaved: 'Medicine added.', medicineName: 'Product name', activeSubstance: 'Active substance (optional)',
  dashNote: 'As the label prints them: leave a period empty where the label has a dash (not authorised).',
  dryCow: 'Dry-cow product (milk withheld until calving)', labelLines: 'Label lines by species',
  labelLinesNote: 'Where the label gives other periods for a species or a route.', routeOptional: 'Route (optional)',
  medicinePurchase: 'Medicine purchase', purchaseNeedsMedicine: 'Add the medicine first: a purchase is of a medicine on the farm’s list.',
  batch: 'Batch', expiry: 'Expiry', quantity: 'Quantity', supplierName: 'Supplier', supplierAddress: 'Supplier’s address',
  invoice: 'Invoice or delivery note', recordPurchase: 'Record the purchase', purchaseSaved: 'Purchase recorded.', birthSettings: 'Birth settings',
  gestation: 'Gestation', shortestDays: 'Shortest (days)', longestDays: 'Longest (days)',
  birthSettingsNote: 'The birth review dates conception by this range. Herdbook has no defaults: an empty field is not used.',
};
const fr: typeof en = {
  importAnimals: 'Importer des animaux (CSV)', importFile: 'Le registre en CSV', importCheck: 'Vérifier le fichier', importRun: 'Importer',
  importNote: 'Colonnes nommées comme dans docs/csv.md : tag (obligatoire), name, eid, sex, birth_date, breed, dam, sire, group, arrival, arrival_date… Rien n’est écrit tant qu’une ligne est fausse.',
  importChecked: 'Le fichier est bon : voici ce que ferait l’import.', importDone: 'Importé.', importProblems: 'Problèmes du fichier, par ligne et colonne',
  importCreated: 'Nouveaux animaux', importUpdated: 'Animaux modifiés', importUnchanged: 'Inchangés', importGroups: 'Nouveaux lots',
  import_created: 'nouveau', import_updated: 'modifié', import_unchanged: 'inchangé', row: 'Ligne', column: 'Colonne', problem: 'Problème',
  importSession: 'Importer une séance de pesée', sessionFile: 'Le fichier de séance exporté par la bascule',
  sessionNote: 'Fichiers de séance Tru-Test, Gallagher et Digi-Star (docs/csv.md). L’animal de chaque ligne est trouvé par son IDE ou son numéro et son poids confronté à son historique ; rien n’est écrit tant qu’une ligne est fausse.',
  sessionUnit: 'Unité des poids', sessionDateOrder: 'Comment le fichier écrit ses dates', sessionDate: 'Jour de la séance (si le fichier n’a pas de dates)',
  asTheFileSays: 'Comme le dit le fichier', dayFirst: 'Jour d’abord (13/03/2026)', monthFirst: 'Mois d’abord (03/13/2026)',
  sessionRows: 'Pesées du fichier', sessionRecorded: 'Poids enregistrés', sessionIgnored: 'Colonnes non enregistrées :', weighRecorded: 'enregistré',
  manyAnimals: 'Beaucoup d’animaux ?', invoiceFile: 'Ou la facture en fichier', proofNote: 'Un achat a besoin de sa preuve : la référence de la facture, ou la facture elle-même.',
  farmName: 'Nom de l’exploitation', species: 'Espèce', speciesOther: 'Quelle espèce', species_CATTLE: 'Bovins', species_SHEEP: 'Ovins',
  species_GOAT: 'Caprins', species_HORSE: 'Équins', species_BISON: 'Bisons', species_ELK: 'Wapitis', species_OTHER: 'Autre espèce',
  needsNetworkNew: 'Il faut le réseau : le serveur la crée et lui donne son identifiant.', farmSaved: 'Exploitation créée.',
  createFarm: 'Créer l’exploitation',
  newFarmNote: 'Vous en devenez propriétaire. Une exploitation élève une seule espèce ; le fuseau horaire décide du jour d’un enregistrement.',
  animalSaved: 'Animal ajouté :', purchaseOf: 'Achat de', nameOptional: 'Nom (facultatif)', eidOptional: 'Identifiant électronique (facultatif)',
  purchaseNotQueued: 'L’animal attend sur cet appareil ; son achat n’est pas enregistré : ajoutez-le de nouveau une fois en ligne.',
  documentRefused: 'L’animal et son achat sont enregistrés, mais pas le document :', damOptional: 'Mère (facultatif)', animalKind: 'Son arrivée',
  kind_born: 'Né ici', kind_bought: 'Acheté', kind_calf: 'Veau acheté', purchase: 'Achat', purchasedOn: 'Acheté le',
  fromHoldingScheme: 'Provenance : système d’immatriculation', fromHolding: 'Provenance : numéro d’exploitation', seller: 'Vendeur',
  document: 'Passeport ou document de mouvement (facultatif)',
  bornHereNote: 'Une mère du troupeau enregistre la naissance avec elle ; le père peut être un taureau extérieur.', addGroup: 'Ajouter un lot',
  groupSaved: 'Lot ajouté.', groupName: 'Nom du lot', groupNote: 'Y mettre des animaux à partir d’un jour :', medicineSaved: 'Médicament ajouté.',
  medicineName: 'Nom du produit', activeSubstance: 'Substance active (facultatif)',
  dashNote: 'Tels que l’étiquette les indique : laissez vide un délai marqué d’un tiret (non autorisé).',
  dryCow: 'Produit de tarissement (lait retenu jusqu’au vêlage)', labelLines: 'Lignes de l’étiquette par espèce',
  labelLinesNote: 'Quand l’étiquette donne d’autres délais pour une espèce ou une voie.', routeOptional: 'Voie (facultatif)',
  medicinePurchase: 'Achat de médicament',
  purchaseNeedsMedicine: 'Ajoutez d’abord le médicament : un achat porte sur un médicament de la liste de l’exploitation.', batch: 'Lot',
  expiry: 'Péremption', quantity: 'Quantité', supplierName: 'Fournisseur', supplierAddress: 'Adresse du fournisseur',
  invoice: 'Facture ou bon de livraison', recordPurchase: 'Enregistrer l’achat', purchaseSaved: 'Achat enregistré.',
  birthSettings: 'Réglages des naissances', gestation: 'Gestation', shortestDays: 'La plus courte (jours)', longestDays: 'La plus longue (jours)',
  birthSettingsNote: 'La revue des naissances date la conception par cette plage. Herdbook n’a pas de valeur par défaut : un champ vide n’est pas utilisé.',
};
type Word = Key | keyof typeof en;
/** say is the string of a key in the user's language: this screen's own, else the app's. */
const say = (k: Word): string => (k in en ? (prefs.lang === 'fr' ? fr : en)[k as keyof typeof en] : t(k as Key));

const SPECIES: FarmSpecies[] = ['CATTLE', 'SHEEP', 'GOAT', 'HORSE', 'BISON', 'ELK', 'OTHER'];
// The holding schemes an animal may come from (registry/scheme), as the registry screen offers.
const SCHEMES = ['uk.cph', 'de.hitier.bnr', 'nl.ubn', 'ie.herd', 'nz.nait', 'au.nlis.pic'];

type Values = Record<string, string>;
/** useForm keeps a form's values, its problems by field and its status line. */
function useForm(first: Values) {
  const [v, setV] = useState<Values>(first);
  const [errs, setErrs] = useState<Problems>({});
  const [msg, setMsg] = useState<string | JSX.Element>('');
  const [busy, setBusy] = useState(false);
  const put = (k: string) => (e: Event) => setV((o) => ({ ...o, [k]: (e.currentTarget as HTMLInputElement).value }));
  return { v, setV, errs, setErrs, msg, setMsg, busy, setBusy, put };
}
const orNull = (s: string | undefined) => (s?.trim() ? s.trim() : null);
const int = (s: string | undefined) => (s?.trim() ? Number(s) : null);

/** NewFarm makes a farm (the viewer its OWNER) and sets its time zone, then opens it: its
 * dashboard's start card says what to do next. */
export function NewFarm() {
  const f = useForm({ name: '', species: 'CATTLE', species_other: '', time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone || '' });
  // The farm once the server made it: a refused time zone is sent again alone.
  const [made, setMade] = useState<string | null>(null);
  const shown = Object.keys(f.v);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!navigator.onLine) { f.setMsg(say('needsNetworkNew')); return; }
    f.setBusy(true); f.setMsg('');
    let id = made;
    if (!id) {
      const out = await send(FarmCreateDocument, { input: {
        name: f.v.name!.trim(), species: f.v.species as FarmSpecies, speciesOther: f.v.species === 'OTHER' ? orNull(f.v.species_other) : null,
      } }, crypto.randomUUID());
      const j = out.offline ? { ok: false, errs: {}, msg: say('needsNetworkNew') } : judge(out, say('farmSaved'), shown);
      if (!j.ok || !out.data) { f.setBusy(false); f.setErrs(j.errs); f.setMsg(j.msg); return; }
      id = out.data.farmCreate.farm.id;
      setMade(id);
    }
    if (f.v.time_zone!.trim()) {
      const out = await send(FarmZoneDocument, { input: { farmID: id, timeZone: f.v.time_zone!.trim() } }, crypto.randomUUID());
      const j = judge(out, say('farmSaved'), shown);
      if (!j.ok) { f.setBusy(false); f.setErrs(j.errs); f.setMsg(j.msg); return; }
    }
    f.setBusy(false);
    navigate(`/farms/${id}`);
  };
  return (
    <section aria-labelledby="nf-title">
      <h1 id="nf-title">{say('newFarm')}</h1>
      <form class="card" id="farm-form" onSubmit={submit}>
        <Field id="nf-name" label={say('farmName')} error={f.errs.name}>
          <input type="text" required autoComplete="off" {...invalid('nf-name', f.errs.name)} value={f.v.name} onInput={f.put('name')} disabled={!!made} /></Field>
        <Field id="nf-species" label={say('species')} error={f.errs.species}>
          <select {...invalid('nf-species', f.errs.species)} value={f.v.species} onChange={f.put('species')} disabled={!!made}>
            {SPECIES.map((s) => <option key={s} value={s}>{say(`species_${s}` as Word)}</option>)}</select></Field>
        {f.v.species === 'OTHER' && <Field id="nf-species_other" label={say('speciesOther')} error={f.errs.species_other}>
          <input type="text" required autoComplete="off" {...invalid('nf-species_other', f.errs.species_other)} value={f.v.species_other} onInput={f.put('species_other')} disabled={!!made} /></Field>}
        <Field id="nf-time_zone" label={say('timeZone')} error={f.errs.time_zone}>
          <input type="text" autoComplete="off" {...invalid('nf-time_zone', f.errs.time_zone)} value={f.v.time_zone} onInput={f.put('time_zone')} /></Field>
        <p class="note">{say('newFarmNote')}</p>
        <button type="submit" id="nf-save" disabled={f.busy}>{say('createFarm')}</button>
        {f.msg && <p role="status" id="nf-status">{f.msg}</p>}
      </form>
    </section>
  );
}

type Kind = 'born' | 'bought' | 'calf';
const KINDS: Kind[] = ['born', 'bought', 'calf'];
const ANIMAL = ['tag', 'name', 'sex', 'birth_date', 'breed', 'eid', 'dam_id', 'sire_id', 'date', 'holding_scheme', 'holding_number', 'description', 'document'];
const blankAnimal = (): Values => ({ tag: '', name: '', sex: '', birth_date: '', breed: '', eid: '', dam: '', sire: '', date: today(), holding_scheme: '', holding_number: '', description: '' });
// The title the server gives a purchase recorded by factCreate, so both read alike.
const PURCHASE = 'Birth history: purchase';

/** upload stores a document of the farm (a passport, a movement licence, an invoice), attached
 * to a record when one is named: POST /v1/file (docs/files.md). It answers the file's id, or
 * the server's words when it refuses the file. */
async function upload(farmID: string, recordID: string | null, file: File): Promise<{ id?: string; why?: string }> {
  const form = new FormData();
  form.append('farm_id', farmID);
  if (recordID) form.append('record_id', recordID);
  form.append('files', file, file.name);
  try {
    const res = await authFetch('/v1/file', { method: 'POST', body: form });
    const body = await res.json().catch(() => null) as { files?: Array<{ id: string }>; errors?: Array<{ message?: string }> } | null;
    if (res.ok && body?.files?.[0]) return { id: body.files[0].id };
    return { why: body?.errors?.map((x) => x.message).join('; ') || `HTTP ${res.status}` };
  } catch (e) {
    return { why: (e as Error).message };
  }
}

/** NewAnimal adds one animal: born here (its dam a herd animal, its birth recorded with her),
 * bought in (its papers' parents, the day it came and the holding it came from, the seller,
 * a document), or a bought-in calf (the same, its birth date and sex asked for). */
export function NewAnimal({ farmID }: { farmID: string }) {
  const [{ data }] = useQuery({ query: AnimalFormDocument, variables: { farmID } });
  const outside = data?.farm?.outsideAnimals.edges.map((e) => e.node) ?? [];
  const [kind, setKind] = useState<Kind>('born');
  const f = useForm(blankAnimal());
  const [damPick, setDamPick] = useState('');
  const [sirePick, setSirePick] = useState('');
  const [doc, setDoc] = useState<File | null>(null);
  // A new round of the form draws a new file field: a file field cannot be emptied by a value.
  const [round, setRound] = useState(0);
  // The animal once the server made it: a refused purchase is sent again without it.
  const [made, setMade] = useState<{ tag: string; id: string } | null>(null);
  const bought = kind !== 'born';
  const v = f.v;
  const submit = async (e: Event) => {
    e.preventDefault();
    f.setErrs({}); f.setMsg('');
    if (bought && !navigator.onLine) { f.setMsg(say('needsNetworkNew')); return; }
    f.setBusy(true);
    const tag = v.tag!.trim();
    // A parent named by its tag is looked up on the farm (or in the kept register offline).
    const lookup: Problems = {};
    const dam = damPick ? { id: damPick } : v.dam!.trim() ? await findOne(farmID, v.dam!) : null;
    if (!damPick && v.dam!.trim() && !dam) lookup.dam_id = say('notFound');
    const sire = sirePick ? { id: sirePick } : v.sire!.trim() ? await findOne(farmID, v.sire!) : null;
    if (!sirePick && v.sire!.trim() && !sire) lookup.sire_id = say('notFound');
    if (Object.keys(lookup).length) { f.setBusy(false); f.setErrs(lookup); f.setMsg(say('fixFields')); return; }
    let id = made && made.tag === tag ? made.id : null;
    if (!id) {
      const out = await write(`${say('addAnimal')} ${tag}`, AnimalCreateDocument, { input: {
        farmID, tag, name: orNull(v.name), sex: (v.sex ? v.sex.toUpperCase() : null) as Sex | null, birthDate: v.birth_date || null, breed: orNull(v.breed),
        damID: dam?.id ?? null, sireID: sire?.id ?? null, eid: orNull(v.eid),
      } });
      const j = judge(out, say('animalSaved'), ANIMAL);
      if (!j.ok) { f.setBusy(false); f.setErrs(j.errs); f.setMsg(j.msg); return; }
      if (out.queued || !out.data) {
        f.setBusy(false);
        f.setMsg(bought ? say('purchaseNotQueued') : j.msg);
        if (!bought) { f.setV((o) => ({ ...blankAnimal(), date: o.date! })); setDamPick(''); setSirePick(''); }
        return;
      }
      id = out.data.animalCreate.animal.id;
      setMade({ tag, id });
    }
    if (bought) {
      const number = v.holding_number!.trim();
      const fact: Record<string, unknown> = { kind: 'purchase', animal_id: id, date: v.date };
      if (number || v.holding_scheme) { fact.holding_scheme = v.holding_scheme; fact.holding_number = number; }
      const out = await write(`${say('purchaseOf')} ${tag}`, PurchaseRecordDocument, { input: {
        farmID, animalIDs: [id], name: PURCHASE, type: 'MOVEMENT', appliedAt: `${v.date}T00:00:00Z`, description: orNull(v.description),
        items: [{ name: PURCHASE, metadata: { birth_history: fact } }],
      } });
      const j = judge(out, say('animalSaved'), ANIMAL);
      if (!j.ok) { f.setBusy(false); f.setErrs(j.errs); f.setMsg(j.msg); return; }
      // The document goes once the purchase is recorded; a refused one leaves both recorded.
      const why = doc && out.data ? (await upload(farmID, out.data.recordCreate.record.id, doc)).why : undefined;
      if (why) f.setErrs({ document: why });
      done(id, tag, why ? 'documentRefused' : 'animalSaved');
      return;
    }
    done(id, tag, 'animalSaved');
  };
  /** done empties the form for the next animal (a purchase's day, holding and seller stay:
   * animals often come in together) and links the one just made. */
  const done = (id: string, tag: string, said: Word) => {
    f.setBusy(false);
    setMade(null); setDamPick(''); setSirePick(''); setDoc(null); setRound((n) => n + 1);
    f.setV((o) => ({ ...blankAnimal(), date: o.date!, holding_scheme: o.holding_scheme!, holding_number: o.holding_number!, description: o.description! }));
    f.setMsg(<>{say(said)} <a href={`/farms/${farmID}/animals/${id}`} id="na-made">{tag}</a></>);
  };
  const text = (k: string, label: Word, extra: Record<string, unknown> = {}) => (
    <Field id={`na-${k}`} label={say(label)} error={f.errs[k]}>
      <input type="text" autoComplete="off" {...extra} {...invalid(`na-${k}`, f.errs[k])} value={v[k]} onInput={f.put(k)} /></Field>
  );
  const date = (k: string, label: Word, required: boolean) => (
    <Field id={`na-${k}`} label={say(label)} error={f.errs[k]}>
      <DateInput name={say(label)} required={required} max={today()} {...invalid(`na-${k}`, f.errs[k])} value={v[k] ?? ''} onValue={(d) => f.setV((o) => ({ ...o, [k]: d }))} /></Field>
  );
  return (
    <section aria-labelledby="na-title">
      <h1 id="na-title">{say('addAnimal')}</h1>
      <p class="note">{say('manyAnimals')} <a href={`/farms/${farmID}/import`} id="na-import">{say('importAnimals')}</a></p>
      <form class="card" id="animal-form" onSubmit={submit}>
        <fieldset class="choice stack"><legend>{say('animalKind')}</legend>
          {KINDS.map((k) => <label key={k}><input type="radio" name="na-kind" id={`na-kind-${k}`} value={k} checked={kind === k} onChange={() => setKind(k)} /> {say(`kind_${k}` as Word)}</label>)}
        </fieldset>
        {text('tag', 'tag', { required: true })}
        {text('name', 'nameOptional')}
        <Field id="na-sex" label={say('sex')} error={f.errs.sex}>
          <select required={kind === 'calf'} {...invalid('na-sex', f.errs.sex)} value={v.sex} onChange={f.put('sex')}>
            <option value="">—</option><option value="female">{say('female')}</option><option value="male">{say('male')}</option></select></Field>
        {date('birth_date', 'birthDate', kind === 'calf')}
        {text('breed', 'breed')}
        {text('eid', 'eidOptional', { inputMode: 'numeric' })}
        {kind === 'born'
          ? <Field id="na-dam" label={say('damTag')} error={f.errs.dam_id}>
            <input type="text" autoComplete="off" {...invalid('na-dam', f.errs.dam_id)} value={v.dam} onInput={f.put('dam')} /></Field>
          : <Parent id="na-dam" label={say('damOptional')} outside={outside.filter((o) => o.sex === 'female')} pick={damPick} setPick={setDamPick} tag={v.dam!} setTag={(s) => f.setV((o) => ({ ...o, dam: s }))} optional error={f.errs.dam_id} />}
        <Parent id="na-sire" label={say('sireTag')} outside={outside.filter((o) => o.sex === 'male')} pick={sirePick} setPick={setSirePick} tag={v.sire!} setTag={(s) => f.setV((o) => ({ ...o, sire: s }))} optional error={f.errs.sire_id} />
        {bought && <fieldset id="na-purchase"><legend>{say('purchase')}</legend>
          {date('date', 'purchasedOn', true)}
          <Field id="na-holding_scheme" label={say('fromHoldingScheme')} error={f.errs.holding_scheme}>
            <select {...invalid('na-holding_scheme', f.errs.holding_scheme)} value={v.holding_scheme} onChange={f.put('holding_scheme')}>
              <option value="">—</option>{SCHEMES.map((s) => <option key={s} value={s}>{say(`scheme_${s.replace(/\./g, '_')}` as Word)}</option>)}</select></Field>
          {text('holding_number', 'fromHolding')}
          {text('description', 'seller')}
          <Field id="na-document" label={say('document')} error={f.errs.document}>
            <input type="file" key={round} {...invalid('na-document', f.errs.document)} onChange={(e) => setDoc(e.currentTarget.files?.[0] ?? null)} /></Field>
        </fieldset>}
        {kind === 'born' && <p class="note">{say('bornHereNote')}</p>}
        <button type="submit" id="na-save" disabled={f.busy}>{say('addAnimal')}</button>
        {f.msg && <p role="status" id="na-status">{f.msg}</p>}
      </form>
    </section>
  );
}

/** NewGroup adds a group; its members are moved in on the move screen. */
export function NewGroup({ farmID }: { farmID: string }) {
  const [{ data }, again] = useQuery({ query: GroupsDocument, variables: { farmID } });
  // A group queued offline shows in the list once the outbox has sent it.
  useEffect(() => onOutbox(() => again({ requestPolicy: 'network-only' })), [farmID]);
  const groups = data?.farm?.groups.edges?.flatMap((e) => (e?.node ? [e.node] : [])) ?? [];
  const f = useForm({ name: '' });
  const submit = async (e: Event) => {
    e.preventDefault();
    f.setBusy(true);
    const out = await write(`${say('addGroup')} ${f.v.name}`, GroupCreateDocument, { input: { farmID, name: f.v.name!.trim() } });
    const j = judge(out, say('groupSaved'), ['name']);
    f.setBusy(false); f.setErrs(j.errs); f.setMsg(j.msg);
    if (j.ok) { f.setV({ name: '' }); if (!out.queued) again({ requestPolicy: 'network-only' }); }
  };
  return (
    <section aria-labelledby="ng-title">
      <h1 id="ng-title">{say('addGroup')}</h1>
      <form class="card" id="group-form" onSubmit={submit}>
        <Field id="ng-name" label={say('groupName')} error={f.errs.name}>
          <input type="text" required autoComplete="off" {...invalid('ng-name', f.errs.name)} value={f.v.name} onInput={f.put('name')} /></Field>
        <p class="note">{say('groupNote')} <a href={`/farms/${farmID}/move`}>{say('moveToGroup')}</a></p>
        <button type="submit" id="ng-save" disabled={f.busy}>{say('addGroup')}</button>
        {f.msg && <p role="status" id="ng-status">{f.msg}</p>}
      </form>
      <h2>{say('groups')}</h2>
      {groups.length ? <ul id="group-list">{groups.map((g) => <li key={g.id}>{g.name}</li>)}</ul> : <p>{say('none')}</p>}
    </section>
  );
}

interface Line { species: string; route: string; meat: string; milk: string }

/** NewMedicine adds a medicine as its label prints it (the meat and milk periods, a dash
 * where the label has one, and its lines for particular species and routes), and records a
 * purchase of one with its batch and expiry. */
export function NewMedicine({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: MedicineFormDocument, variables: { farmID } });
  // A medicine or purchase queued offline shows once the outbox has sent it.
  useEffect(() => onOutbox(() => again({ requestPolicy: 'network-only' })), [farmID]);
  const m = useForm({ name: '', active_substance: '', withdrawal_meat_days: '', withdrawal_milk_hours: '' });
  const [dry, setDry] = useState(false);
  const [lines, setLines] = useState<Line[]>([]);
  const p = useForm({ medicine_id: '', batch: '', expiry_date: '', quantity: '', quantity_unit: '', supplier_name: '', supplier_address: '', purchased_on: today(), document_reference: '' });
  // The proof of the purchase may be a file instead of a reference: uploaded first, so it needs
  // the network; a new round of the form draws a new, empty file field.
  const [proof, setProof] = useState<File | null>(null);
  const [round, setRound] = useState(0);
  if (error) return <Failed message={error.message} />;
  const species = data?.farm?.species ?? 'CATTLE';
  const meds = data?.farm?.medicines.edges.map((e) => e.node) ?? [];
  const bought = data?.farm?.medicinePurchases.edges.map((e) => e.node) ?? [];
  const medicine = p.v.medicine_id || meds[0]?.id || '';
  const lineKey = (i: number, k: string) => `species_withdrawals[${i}].${k}`;
  const shownM = [...Object.keys(m.v), 'dry_cow', ...lines.flatMap((_, i) => ['species', 'route', 'withdrawal_meat_days', 'withdrawal_milk_hours'].map((k) => lineKey(i, k)))];
  const putLine = (i: number, k: keyof Line) => (e: Event) => {
    const val = (e.currentTarget as HTMLInputElement).value;
    setLines((all) => all.map((l, j) => (j === i ? { ...l, [k]: val } : l)));
  };
  const addMedicine = async (e: Event) => {
    e.preventDefault();
    m.setBusy(true);
    const out = await write(`${say('addMedicine')} ${m.v.name}`, MedicineCreateDocument, { input: {
      farmID, name: m.v.name!.trim(), activeSubstance: orNull(m.v.active_substance),
      // Both periods are sent: an empty one is the label's dash (not authorised), null.
      withdrawalMeatDays: int(m.v.withdrawal_meat_days), withdrawalMilkHours: int(m.v.withdrawal_milk_hours), dryCow: dry,
      speciesWithdrawals: lines.length ? lines.map((l) => ({ species: l.species as FarmSpecies, route: orNull(l.route), withdrawalMeatDays: int(l.meat), withdrawalMilkHours: int(l.milk) })) : null,
    } });
    const j = judge(out, say('medicineSaved'), shownM);
    m.setBusy(false); m.setErrs(j.errs); m.setMsg(j.msg);
    if (j.ok) {
      m.setV({ name: '', active_substance: '', withdrawal_meat_days: '', withdrawal_milk_hours: '' }); setDry(false); setLines([]);
      if (!out.queued) again({ requestPolicy: 'network-only' });
    }
  };
  const addPurchase = async (e: Event) => {
    e.preventDefault();
    p.setErrs({}); p.setMsg('');
    let fileID: string | null = null;
    if (proof) {
      if (!navigator.onLine) { p.setMsg(say('needsNetworkNew')); return; }
      p.setBusy(true);
      const up = await upload(farmID, null, proof);
      if (!up.id) { p.setBusy(false); p.setErrs({ file_id: up.why ?? '' }); p.setMsg(say('fixFields')); return; }
      fileID = up.id;
    }
    p.setBusy(true);
    const name = meds.find((x) => x.id === medicine)?.name ?? '';
    const out = await write(`${say('medicinePurchase')} ${name} ${p.v.batch}`, MedicinePurchaseDocument, { input: {
      farmID, medicineID: medicine, batch: p.v.batch!.trim(), expiryDate: p.v.expiry_date || null, quantity: Number(p.v.quantity),
      quantityUnit: p.v.quantity_unit!.trim(), supplierName: p.v.supplier_name!.trim(), supplierAddress: p.v.supplier_address!.trim(),
      purchasedOn: p.v.purchased_on!, documentReference: orNull(p.v.document_reference), fileID,
    } });
    const j = judge(out, say('purchaseSaved'), [...Object.keys(p.v), 'file_id']);
    p.setBusy(false); p.setErrs(j.errs); p.setMsg(j.msg);
    if (j.ok) {
      p.setV((o) => ({ ...o, batch: '', expiry_date: '', quantity: '', document_reference: '' }));
      setProof(null); setRound((n) => n + 1);
      if (!out.queued) again({ requestPolicy: 'network-only' });
    }
  };
  const mf = (k: string, label: Word, input: JSX.Element) => <Field id={`nm-${k}`} label={say(label)} error={m.errs[k]}>{input}</Field>;
  const pf = (k: string, label: Word, input: JSX.Element) => <Field id={`mp-${k}`} label={say(label)} error={p.errs[k]}>{input}</Field>;
  const ptext = (k: string, label: Word, extra: Record<string, unknown> = {}) => pf(k, label,
    <input type="text" autoComplete="off" required {...extra} {...invalid(`mp-${k}`, p.errs[k])} value={p.v[k]} onInput={p.put(k)} />);
  return (
    <section aria-labelledby="nm-title">
      <h1 id="nm-title">{say('addMedicine')}</h1>
      <form class="card" id="medicine-form" onSubmit={addMedicine}>
        {mf('name', 'medicineName', <input type="text" required autoComplete="off" {...invalid('nm-name', m.errs.name)} value={m.v.name} onInput={m.put('name')} />)}
        {mf('active_substance', 'activeSubstance', <input type="text" autoComplete="off" {...invalid('nm-active_substance', m.errs.active_substance)} value={m.v.active_substance} onInput={m.put('active_substance')} />)}
        <div class="pair even">
          {mf('withdrawal_meat_days', 'meatDays', <input type="number" min="0" step="1" inputMode="numeric" {...invalid('nm-withdrawal_meat_days', m.errs.withdrawal_meat_days)} value={m.v.withdrawal_meat_days} onInput={m.put('withdrawal_meat_days')} />)}
          {mf('withdrawal_milk_hours', 'milkHours', <input type="number" min="0" step="1" inputMode="numeric" {...invalid('nm-withdrawal_milk_hours', m.errs.withdrawal_milk_hours)} value={m.v.withdrawal_milk_hours} onInput={m.put('withdrawal_milk_hours')} />)}
        </div>
        <p class="note">{say('dashNote')}</p>
        <label class="check"><input id="nm-dry" type="checkbox" checked={dry} onChange={(e) => setDry(e.currentTarget.checked)} />{say('dryCow')}</label>
        <fieldset id="nm-lines"><legend>{say('labelLines')}</legend>
          <p class="note">{say('labelLinesNote')}</p>
          {lines.map((l, i) => {
            const id = (k: string) => `nm-line-${i}-${k}`;
            const err = (k: string) => m.errs[lineKey(i, k)];
            return (
              <div class="line-edit" key={i}>
                <Field id={id('species')} label={say('species')} error={err('species')}>
                  <select {...invalid(id('species'), err('species'))} value={l.species} onChange={putLine(i, 'species')}>
                    {SPECIES.filter((s) => s !== 'OTHER').map((s) => <option key={s} value={s}>{say(`species_${s}` as Word)}</option>)}</select></Field>
                <Field id={id('route')} label={say('routeOptional')} error={err('route')}>
                  <input type="text" autoComplete="off" {...invalid(id('route'), err('route'))} value={l.route} onInput={putLine(i, 'route')} /></Field>
                <div class="pair even">
                  <Field id={id('meat')} label={say('meatDays')} error={err('withdrawal_meat_days')}>
                    <input type="number" min="0" step="1" inputMode="numeric" {...invalid(id('meat'), err('withdrawal_meat_days'))} value={l.meat} onInput={putLine(i, 'meat')} /></Field>
                  <Field id={id('milk')} label={say('milkHours')} error={err('withdrawal_milk_hours')}>
                    <input type="number" min="0" step="1" inputMode="numeric" {...invalid(id('milk'), err('withdrawal_milk_hours'))} value={l.milk} onInput={putLine(i, 'milk')} /></Field>
                </div>
                <button type="button" class="secondary" aria-label={`${say('removeLine')} ${i + 1}`} onClick={() => setLines((all) => all.filter((_, j) => j !== i))}>✕ {say('removeLine')}</button>
              </div>
            );
          })}
          <button type="button" class="secondary" id="nm-line-add" onClick={() => setLines((all) => [...all, { species: species === 'OTHER' ? 'CATTLE' : species, route: '', meat: '', milk: '' }])}>{say('addLine')}</button>
        </fieldset>
        <button type="submit" id="nm-save" disabled={m.busy}>{say('addMedicine')}</button>
        {m.msg && <p role="status" id="nm-status">{m.msg}</p>}
      </form>

      <h2 id="mp-title">{say('medicinePurchase')}</h2>
      {meds.length === 0 ? <p class="note" id="mp-none">{say('purchaseNeedsMedicine')}</p> : (
        <form class="card" id="purchase-form" onSubmit={addPurchase} aria-labelledby="mp-title">
          {pf('medicine_id', 'medicine', <select required {...invalid('mp-medicine_id', p.errs.medicine_id)} value={medicine} onChange={p.put('medicine_id')}>
            {meds.map((x) => <option key={x.id} value={x.id}>{x.name}</option>)}</select>)}
          {ptext('batch', 'batch')}
          {pf('expiry_date', 'expiry', <DateInput name={say('expiry')} {...invalid('mp-expiry_date', p.errs.expiry_date)} value={p.v.expiry_date ?? ''} onValue={(d) => p.setV((o) => ({ ...o, expiry_date: d }))} />)}
          <div class="pair even">
            {pf('quantity', 'quantity', <input type="number" required min="0" step="any" inputMode="decimal" {...invalid('mp-quantity', p.errs.quantity)} value={p.v.quantity} onInput={p.put('quantity')} />)}
            {ptext('quantity_unit', 'unit')}
          </div>
          {ptext('supplier_name', 'supplierName')}
          {ptext('supplier_address', 'supplierAddress')}
          {pf('purchased_on', 'purchasedOn', <DateInput name={say('purchasedOn')} required max={today()} {...invalid('mp-purchased_on', p.errs.purchased_on)} value={p.v.purchased_on ?? ''} onValue={(d) => p.setV((o) => ({ ...o, purchased_on: d }))} />)}
          {ptext('document_reference', 'invoice', { required: false })}
          {pf('file_id', 'invoiceFile', <input type="file" key={round} {...invalid('mp-file_id', p.errs.file_id)} onChange={(e) => setProof(e.currentTarget.files?.[0] ?? null)} />)}
          <p class="note">{say('proofNote')}</p>
          <button type="submit" id="mp-save" disabled={p.busy}>{say('recordPurchase')}</button>
          {p.msg && <p role="status" id="mp-status">{p.msg}</p>}
        </form>
      )}
      {bought.length > 0 && <ul class="outbox" id="purchase-list">{bought.map((x) => (
        <li key={x.id}>{showDate(x.purchasedOn)} · <strong>{x.medicineName}</strong> · {say('batch')} {x.batch} · {x.quantity} {x.quantityUnit}{x.expiryDate && <> · {say('expiry')} {showDate(x.expiryDate)}</>}</li>
      ))}</ul>}
      <p><a href={`/farms/${farmID}/medicines`}>{say('medicines')}</a></p>
    </section>
  );
}

/** BirthSettings sets the gestation range the birth review dates conception by, and how old a
 * sire must be: a new version of the farm's birth settings, whose other parts (breeds' own
 * gestation, birth seasons) are sent back as they were. Herdbook ships no default. */
export function BirthSettings({ farmID }: { farmID: string }) {
  const [{ data, error }, again] = useQuery({ query: BirthSettingsFormDocument, variables: { farmID } });
  const s = data?.farm?.birthSettings;
  const cur = s?.settings;
  const f = useForm({ min: '', max: '', minimum_sire_age_days: '' });
  useEffect(() => {
    if (s) f.setV({ min: String(cur?.gestationDays?.min ?? ''), max: String(cur?.gestationDays?.max ?? ''), minimum_sire_age_days: String(cur?.minimumSireAgeDays ?? '') });
  }, [s?.settingsVersion]);
  if (error) return <Failed message={error.message} />;
  if (!data?.farm || !s) return <p aria-busy="true">{say('loading')}</p>;
  const farm = data.farm;
  const submit = async (e: Event) => {
    e.preventDefault();
    f.setBusy(true);
    const gestation = f.v.min!.trim() || f.v.max!.trim() ? { min: Number(f.v.min), max: Number(f.v.max) } : null;
    const out = await write(say('birthSettings'), BirthSettingsSaveDocument, { input: {
      farmID, version: s.settingsVersion + 1, species: farm.species, gestationDays: gestation,
      gestationDaysByBreed: cur?.gestationDaysByBreed.map((b) => ({ breed: b.breed, min: b.min, max: b.max })) ?? null,
      minimumSireAgeDays: int(f.v.minimum_sire_age_days),
      birthWindows: cur?.birthWindows.map((w) => ({ label: w.label, startDate: w.startDate, endDate: w.endDate })) ?? null,
    } });
    // The gestation range's problems name gestation_days.min and .max.
    const j = judge(out, say('saved'), ['gestation_days.min', 'gestation_days.max', 'gestation_days', 'minimum_sire_age_days']);
    f.setBusy(false); f.setErrs(j.errs); f.setMsg(j.msg);
    if (j.ok && !out.queued) again({ requestPolicy: 'network-only' });
  };
  const err = (k: string) => f.errs[`gestation_days.${k}`] ?? (k === 'min' ? f.errs.gestation_days : undefined);
  return (
    <section aria-labelledby="bs-title">
      <h1 id="bs-title">{say('birthSettings')}</h1>
      <form class="card" id="birth-settings-form" onSubmit={submit}>
        <fieldset><legend>{say('gestation')}</legend>
          <div class="pair even">
            <Field id="bs-min" label={say('shortestDays')} error={err('min')}>
              <input type="number" min="1" step="1" inputMode="numeric" {...invalid('bs-min', err('min'))} value={f.v.min} onInput={f.put('min')} /></Field>
            <Field id="bs-max" label={say('longestDays')} error={err('max')}>
              <input type="number" min="1" step="1" inputMode="numeric" {...invalid('bs-max', err('max'))} value={f.v.max} onInput={f.put('max')} /></Field>
          </div>
        </fieldset>
        <Field id="bs-minimum_sire_age_days" label={say('breedingAgeMale')} error={f.errs.minimum_sire_age_days}>
          <input type="number" min="0" step="1" inputMode="numeric" {...invalid('bs-minimum_sire_age_days', f.errs.minimum_sire_age_days)} value={f.v.minimum_sire_age_days} onInput={f.put('minimum_sire_age_days')} /></Field>
        <p class="note">{say('birthSettingsNote')}</p>
        <button type="submit" id="bs-save" disabled={f.busy}>{say('save')}</button>
        {f.msg && <p role="status" id="bs-status">{f.msg}</p>}
      </form>
    </section>
  );
}

interface ImportAnswer {
  dry_run: boolean; rows: number; created: number; updated: number; unchanged: number; groups_created: number; facts: number;
  animals: Array<{ row: number; tag: string; animal_id: string | null; action: string }>;
}
interface RowProblem { row?: number; column?: string; message?: string }

/** useUpload sends a file to one of the REST API's imports (docs/csv.md): checked first (a
 * dry run) or imported, all or nothing. The server reads every row; its problems come back by
 * row and column, as a spreadsheet numbers them. It needs the network: the file goes to the
 * server. path is the import's address for a dry run or not. */
function useUpload<A>(path: (dry: boolean) => string) {
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [msg, setMsg] = useState('');
  const [answer, setAnswer] = useState<A | null>(null);
  const [problems, setProblems] = useState<RowProblem[]>([]);
  // One key per file and request: a retry of the same import replays the server's first answer.
  const [keys] = useState(() => new Map<string, string>());
  const pick = (f: File | null) => { setFile(f); setAnswer(null); setProblems([]); setMsg(''); };
  const run = async (dry: boolean) => {
    if (!file) return;
    if (!navigator.onLine) { setMsg(say('needsNetworkNew')); return; }
    setBusy(true); setMsg(''); setAnswer(null); setProblems([]);
    const url = path(dry);
    const id = `${file.name}:${file.size}:${file.lastModified}:${url}`;
    if (!keys.has(id)) keys.set(id, crypto.randomUUID());
    const form = new FormData();
    form.append('file', file, file.name);
    try {
      const res = await authFetch(url, { method: 'POST', body: form, headers: { 'Idempotency-Key': keys.get(id)! } });
      const body = await res.json().catch(() => null) as (A & { errors?: RowProblem[] }) | null;
      if (res.ok && body) {
        setAnswer(body);
        setMsg(say(dry ? 'importChecked' : 'importDone'));
      } else {
        setProblems(body?.errors ?? []);
        setMsg(`${say('refused')}: ${body?.errors?.length ? say('importProblems') : `HTTP ${res.status}`}`);
      }
    } catch (e) {
      setMsg(`${say('error')}: ${(e as Error).message}`);
    }
    setBusy(false);
  };
  return { file, pick, busy, msg, answer, problems, run };
}

/** UploadForm is an import's form: the file, the import's own fields, Check and Import, the
 * status and the server's problems by row and column. */
function UploadForm<A>({ id, up, label, accept, note, children }: {
  id: string; up: ReturnType<typeof useUpload<A>>; label: string; accept: string; note: string; children?: JSX.Element | JSX.Element[];
}) {
  return <>
    <form class="card" id={`${id}-form`} onSubmit={(e) => { e.preventDefault(); void up.run(false); }}>
      <Field id={`${id}-file`} label={label}>
        <input type="file" id={`${id}-file`} accept={accept} required onChange={(e) => up.pick(e.currentTarget.files?.[0] ?? null)} /></Field>
      {children}
      <p class="note">{note}</p>
      <div class="actions">
        <button type="button" class="secondary" id={`${id}-check`} disabled={up.busy || !up.file} onClick={() => void up.run(true)}>{say('importCheck')}</button>
        <button type="submit" id={`${id}-save`} disabled={up.busy || !up.file}>{say('importRun')}</button>
      </div>
      {up.msg && <p role="status" id={`${id}-status`}>{up.msg}</p>}
    </form>
    {up.problems.length > 0 && (
      <table class="table" id={`${id}-problems`}>
        <caption>{say('importProblems')}</caption>
        <thead><tr><th scope="col">{say('row')}</th><th scope="col">{say('column')}</th><th scope="col">{say('problem')}</th></tr></thead>
        <tbody>{up.problems.map((p, i) => <tr key={i}><td>{p.row ?? '—'}</td><td>{p.column ?? '—'}</td><td>{p.message}</td></tr>)}</tbody>
      </table>
    )}
  </>;
}

/** Import sends a register kept elsewhere as CSV (docs/csv.md). */
export function Import({ farmID }: { farmID: string }) {
  const up = useUpload<ImportAnswer>((dry) => `/v1/farm/${farmID}/animals/import?dry_run=${dry}`);
  const answer = up.answer;
  return (
    <section aria-labelledby="im-title">
      <h1 id="im-title">{say('importAnimals')}</h1>
      <UploadForm id="im" up={up} label={say('importFile')} accept=".csv,text/csv" note={say('importNote')} />
      {answer && <>
        <dl class="stats" id="im-summary">
          <div><dt>{say('importCreated')}</dt><dd>{answer.created}</dd></div>
          <div><dt>{say('importUpdated')}</dt><dd>{answer.updated}</dd></div>
          <div><dt>{say('importUnchanged')}</dt><dd>{answer.unchanged}</dd></div>
          <div><dt>{say('importGroups')}</dt><dd>{answer.groups_created}</dd></div>
        </dl>
        <ul class="plain" id="im-animals">{answer.animals.slice(0, 200).map((a) => (
          <li key={a.row}>{say('row')} {a.row} · {a.animal_id ? <a href={`/farms/${farmID}/animals/${a.animal_id}`}>{a.tag}</a> : a.tag} · {say(`import_${a.action}` as Word)}</li>
        ))}</ul>
      </>}
    </section>
  );
}

interface WeighAnswer {
  dry_run: boolean; layout: string; rows: number; recorded: number; unchanged: number; ignored_columns: string[];
  weighings: Array<{ line: number; animal_id: string; tag: string; date: string; kg: number; action: string }>;
}

/** WeighImport takes a weigh scale's session file (Tru-Test, Gallagher, Digi-Star: docs/csv.md)
 * through the REST import: each line's animal found by its EID or tag and its weight held to
 * the animal's history, nothing written unless every line is good. The unit, the order of a
 * d/m/y date and the session's day are asked only for what the file does not say, and never
 * assumed: the server refuses a file that leaves one open. */
export function WeighImport({ farmID }: { farmID: string }) {
  const [unit, setUnit] = useState('');
  const [order, setOrder] = useState('');
  const [day, setDay] = useState('');
  const up = useUpload<WeighAnswer>((dry) => {
    const q = new URLSearchParams({ dry_run: String(dry) });
    if (unit) q.set('unit', unit);
    if (order) q.set('date_order', order);
    if (day) q.set('date', day);
    return `/v1/farm/${farmID}/weighings/import?${q}`;
  });
  const answer = up.answer;
  return (
    <section aria-labelledby="wi-title">
      <h1 id="wi-title">{say('importSession')}</h1>
      <UploadForm id="wi" up={up} label={say('sessionFile')} accept=".csv,.txt,text/csv,text/plain" note={say('sessionNote')}>
        <Field id="wi-unit" label={say('sessionUnit')}>
          <select id="wi-unit" value={unit} onChange={(e) => setUnit(e.currentTarget.value)}>
            <option value="">{say('asTheFileSays')}</option><option value="kg">kg</option><option value="lb">lb</option>
          </select></Field>
        <Field id="wi-order" label={say('sessionDateOrder')}>
          <select id="wi-order" value={order} onChange={(e) => setOrder(e.currentTarget.value)}>
            <option value="">{say('asTheFileSays')}</option><option value="dmy">{say('dayFirst')}</option><option value="mdy">{say('monthFirst')}</option>
          </select></Field>
        <Field id="wi-date" label={say('sessionDate')}>
          <DateInput id="wi-date" name={say('sessionDate')} max={today()} value={day} onValue={setDay} /></Field>
      </UploadForm>
      {answer && <>
        <dl class="stats" id="wi-summary">
          <div><dt>{say('sessionRows')}</dt><dd>{answer.rows}</dd></div>
          <div><dt>{say('sessionRecorded')}</dt><dd>{answer.recorded}</dd></div>
          <div><dt>{say('importUnchanged')}</dt><dd>{answer.unchanged}</dd></div>
        </dl>
        {answer.ignored_columns.length > 0 && <p class="note" id="wi-ignored">{say('sessionIgnored')} <span translate={false}>{answer.ignored_columns.join(', ')}</span></p>}
        <ul class="plain" id="wi-weighings">{answer.weighings.slice(0, 200).map((w) => (
          <li key={w.line}>{say('row')} {w.line} · <a href={`/farms/${farmID}/animals/${w.animal_id}`}>{w.tag}</a> · {showDate(w.date)} · {showWeight(w.kg)} · {say(w.action === 'recorded' ? 'weighRecorded' : 'import_unchanged')}</li>
        ))}</ul>
      </>}
    </section>
  );
}
