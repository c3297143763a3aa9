// One string catalogue: English and French. Dates, numbers and weights (kg or lb) follow the
// user's choice, kept on the device (preferences, not farm data).
const en = {
  appName: 'Herdbook', signIn: 'Sign in', signOut: 'Sign out', signingIn: 'Signing in…',
  signInLead: 'Your herd book, in the yard and in the office. Sign in with your Herdbook account.',
  offline: 'Offline: showing the last synced register; writes are queued.',
  farms: 'Farms', dashboard: 'Dashboard', register: 'Register', weigh: 'Weigh', treat: 'Treat',
  births: 'Births', settings: 'Settings', skip: 'Skip to content', menu: 'Menu', loading: 'Loading…',
  noFarms: 'You are not a member of any farm yet.',
  headCount: 'Head count', onFarm: 'On farm', sold: 'Sold', died: 'Died', movedOut: 'Moved out',
  groups: 'Groups', tasksDue: 'Tasks due', underWithdrawal: 'Under withdrawal', meatClear: 'meat clear on',
  milkClear: 'milk clear at', unread: 'Unread notifications', none: 'None', markRead: 'Mark all read',
  search: 'Search', searchHint: 'Tag, name, EID or last digits', status: 'Status', group: 'Group', sex: 'Sex',
  any: 'Any', asOf: 'As of', animal: 'animal', animals: 'animals', tag: 'Tag', name: 'Name', breed: 'Breed',
  weight: 'Weight', male: 'Male', female: 'Female', ON_FARM: 'On farm', SOLD: 'Sold', DIED: 'Died',
  MOVED_OUT: 'Moved out', NOT_YET: 'Not yet', lastSynced: 'Last synced',
  profile: 'Profile', born: 'Born', dam: 'Dam', sire: 'Sire', offspring: 'Offspring', identifiers: 'Identifiers',
  timeline: 'Timeline', weights: 'Weights', withdrawal: 'Withdrawal', noWithdrawal: 'No withdrawal running.',
  adg: 'Daily gain', sale: 'Sale', death: 'Death', buyer: 'Buyer', cause: 'Cause', slaughter: 'Slaughtered for food',
  date: 'Date', save: 'Save', saved: 'Saved.', queued: 'Saved on this device; it will be sent when you are online.',
  next: 'Next', eidOrTag: 'EID or tag', kg: 'kg', lb: 'lb', notFound: 'No animal matches.', session: 'This session',
  withdrawalWarning: 'Withdrawal warning', acknowledge: 'I understand: record it anyway', refused: 'Refused',
  medicine: 'Medicine', dose: 'Dose', unit: 'Unit', animalOrGroup: 'Animal tag (or choose a group)',
  treatmentSaved: 'Treatment recorded.', outbox: 'Queued writes', sent: 'Sent', failed: 'Failed', dismiss: 'Dismiss',
  damTag: 'Dam tag', birthDate: 'Birth date', review: 'Review evidence', candidates: 'Sire candidates',
  conception: 'Conception window', reasons: 'Reasons', preview: 'Preview', approve: 'Approve', approved: 'Approved.',
  birthIsCalving: 'Approving a birth records its calving: the calf joins the register, the reports count it and its tasks name it. For twins, birth weights or a known sire, use the calving form:',
  calvingIsBirth: 'A calving is the same record as an approved birth. To review the possible sires first, start on the Births screen:',
  tasks: 'Follow-up tasks', language: 'Language', units: 'Weight unit', dateFormat: 'Date format',
  dateISO: 'Year-month-day', dateLocal: 'As my language writes it',
  pickDate: 'Choose from a calendar', writeDateAs: 'Write the date as', dateNotAfter: 'The date cannot be after', dateNotBefore: 'The date cannot be before', signInAgain: 'Sign in to send queued writes.',
  toReview: 'To review', waiting: 'Waiting to be sent',
  reviewLead: 'The server refused these writes. Fix one and send it again, or discard it: it will then not be recorded.',
  resend: 'Send again', discard: 'Discard', discardSure: 'I understand it will not be recorded', serverReason: 'The server’s reason',
  notSentYet: 'Not on the server yet:', signOutLead: 'Some of your work is not on the server yet. What should happen to it?',
  sendFirst: 'Send it, then sign out', keepForNext: 'Keep it on this device, locked, until I sign in again',
  discardAll: 'Sign out and discard it', stillUnsent: 'Some could not be sent: see the list of queued writes.',
  sessionEnded: 'Your session has ended: sign in again to send what waits here. Nothing queued is lost.',
  writesBack: 'Writes kept at your last sign-out are back in the queue:', writesUnopened: 'Writes kept on this device could not be opened (the password changed since):',
  offlineSession: 'You stay signed in: the session resumes when the network is back.',
  keptAnimal: 'Not read on this device yet: the kept register’s copy. Its timeline comes when the network is back.', notKept: 'This animal is not in the register kept on this device.',
  error: 'Something went wrong', open: 'Open', sync: 'Sync now', moveTo: 'Move',
  noLabelMeat: 'The label gives no meat period.', labelNote: 'By the label; the farm’s rules or the vet can make it later.',
  titleBirthHistory: 'Birth history', titleRegister: 'Register', titleMedicineBook: 'Medicine book', titleImport: 'Register import', batch: 'batch',
  rec_profile: 'profile', rec_castration: 'castration', rec_exposure: 'exposure to a bull', rec_membership: 'joined a group', rec_membership_end: 'left a group',
  rec_purchase: 'purchase', rec_movement_in: 'moved in', rec_movement_out: 'moved out', rec_birth: 'birth', rec_identifier: 'identifier', rec_death: 'death',
  rec_sale: 'sale', rec_weight: 'weight', rec_dna_parentage: 'DNA parentage', rec_treatment: 'treatment', rec_heat: 'heat', rec_insemination: 'insemination',
  rec_hand_mating: 'hand mating', rec_embryo_transfer: 'embryo transfer', rec_pregnancy_check: 'pregnancy check', rec_weaning: 'weaning', rec_pedigree: 'pedigree',
  navHerd: 'Herd', navBreeding: 'Breeding', navHealth: 'Health', navBook: 'Book', navFarm: 'Farm', navYou: 'You',
  taskBoard: 'Tasks', task_TODO: 'To do', task_DONE: 'Done', task_CANCELLED: 'Cancelled',
  medicines: 'Medicines', inspectorBook: 'Open the inspector’s book', meatDays: 'Meat (days)', milkHours: 'Milk (hours)',
  farmSettings: 'Farm settings', members: 'Members', timeZone: 'Time zone (IANA, such as Europe/London)',
  withdrawalRules: 'Off-label withdrawal rules', rules_GB_VMR_2013: 'Great Britain: VMR 2013, Schedule 4', rules_EU_2019_6: 'EU: Regulation 2019/6, Article 115',
  organic: 'Organic farm (withdrawal periods doubled)', allowTestTags: 'Accept test transponders (country code 999)',
  breedingAgeFemale: 'Youngest dam at birth (days)', breedingAgeMale: 'Youngest sire (days)', calvingInterval: 'Fewest days between two births of a dam',
  unset: 'Not set', unsetNote: 'Herdbook has no defaults: a limit left empty is not checked.', ownerOnly: 'Only an owner can change this.',
  lastChanged: 'last changed', neverSet: 'never set', role: 'Role', role_OWNER: 'Owner', role_EDITOR: 'Editor', role_READER: 'Reader',
  phone: 'Phone number', you: 'you', addMember: 'Add a member', removeMember: 'Remove', addMemberNote: 'They need a Herdbook account with this phone number.',
  moveToGroup: 'Move to a group', animalTags: 'Animal tags or EIDs (separated by spaces or commas)', from: 'From', moved: 'moved.',
  moveNote: 'Each animal joins the group from that day; the herd book keeps where it was before.',
  audit: 'Audit trail', until: 'Until', show: 'Show', more: 'Show more', reason: 'Reason', before: 'Before', after: 'After',
  audit_create: 'Created', audit_update: 'Changed', audit_delete: 'Deleted', audit_void: 'Voided', audit_amend: 'Amended',
  auditRecord: 'record', auditItem: 'record item', operator: 'operator (command line)',
  calving: 'Calving', sireTag: 'Sire (optional)', sireBasis: 'Sire known by', basis_service: 'Service', basis_natural_service: 'Ran with him (natural service)', basis_review: 'Birth review', basis_dna: 'DNA',
  calf: 'The calf', weightAtBirth: 'Birth weight', alive: 'Alive', stillborn: 'Stillborn', calvingEase: 'Calving ease', noEaseScale: 'The farm has no calving-ease scale yet (farm settings).',
  calvingSaved: 'Calving recorded.', calvingKnown: 'This calving was already recorded: nothing changed.', recentCalvings: 'Latest calvings',
  correctOnAnimal: 'Correct it on the animal’s page', correct: 'Correct', whatToDo: 'What to correct', item: 'Entry', amendItem: 'Correct the values', voidItem: 'Void this entry only', voidRecord: 'Void the whole record',
  fact_date: 'Day', fact_start_date: 'First day', fact_end_date: 'Last day', saveCorrection: 'Save the correction', void: 'Void', amended: 'Corrected: the old entry is kept, marked superseded.', voided: 'Voided: the entry stays in the book, marked voided.',
  amendNote: 'The herd book keeps the old entry, marked superseded and linked to the correction, with your name, the time and the reason.',
  voidFromTrail: 'A record about no animal (a group treatment, say) is voided here; a record about an animal is corrected on its page too.',
  voidRecordNote: 'The record stays in the book, marked voided, with your name, the time and the reason; it no longer counts.',
  voidNote: 'The entry stays in the book, marked voided, with your name, the time and the reason; it no longer counts.',
  correctNote: 'A correction needs a reason and leaves a trace:', endMembership: 'End membership', leftOn: 'Left the group on', membershipEnded: 'Membership ended.',
  endNote: 'Its last day in the group is the day before. The membership stays in the herd book; nothing is deleted.',
  notifications: 'Notifications', unreadCount: 'unread', unreadCountOne: 'unread', unreadOne: 'Unread', readOn: 'Read on', markOneRead: 'Mark read', markedRead: 'Marked read.', allNotifications: 'All notifications and channels',
  channels: 'Channels', channelsFarm: 'Channels for', channelsDefault: 'Default channels for other farms', emailAddress: 'Email address (for every farm)',
  noEmailAddress: 'Without an email address no email is sent.', channel_IN_APP: 'In the app', channel_EMAIL: 'Email', channel_SMS: 'Text message (SMS)',
  source_FARM: 'Your choice for this farm.', source_DEFAULT: 'Your default applies until you choose for this farm.', source_ROLE: 'Nothing chosen yet: your role’s defaults apply.',
  details: 'Details', withdrawalPlain: 'This animal is under a medicine’s meat withdrawal. Its meat must not enter the food chain before the clear date; the buyer must be told.',
  breeding: 'Breeding', recordService: 'Record a service', serviceKind: 'Service',
  kind_insemination: 'Insemination', kind_hand_mating: 'Hand mating', kind_embryo_transfer: 'Embryo transfer',
  femaleTag: 'Female (tag, EID or last digits)', recipientTag: 'Recipient (tag, EID or last digits)',
  herdAnimal: 'A herd animal: type its tag', outsideAnimals: 'Outside sires and donors', tagOf: 'tag',
  donor: 'Donor (genetic dam)', straw: 'Straw or semen batch', technician: 'Inseminator', embryo: 'Embryo (batch or id)',
  serviceSaved: 'Service recorded.', recordScan: 'Record a pregnancy check', method: 'Method',
  method_SCAN: 'Scan', method_PALPATION: 'Palpation', method_BLOOD: 'Blood test', result: 'Result',
  result_PREGNANT: 'Pregnant', result_EMPTY: 'Empty', result_RECHECK: 'Check again', foetalAge: 'Foetal age in days (optional)',
  scanSaved: 'Pregnancy check recorded.', dueList: 'Due to calve', expected: 'Expected', datedBy: 'Dated by', checked: 'Checked',
  due_service: 'Service', due_foetal_age: 'Foetal age', due_unknown: 'Unknown: no service fits and no foetal age',
  dueNote: 'Females whose last check found them pregnant and that have not calved since. No expected day while the farm’s gestation length is not set.',
  addOutside: 'Add an outside sire or donor', outsideNote: 'An AI bull or an embryo donor that never stands on the farm.', outsideSaved: 'Outside animal recorded.',
  addCalf: 'Add a second calf (twins)', removeCalf: 'Remove the second calf', calf2: 'The second calf',
  freemartin: 'Freemartin (heifer twin of a bull)', twins: 'twins', etCalving: 'Embryo-transfer calving',
  geneticDam: 'Genetic dam (donor)', etNote: 'The dam above carried the calf (its surrogate dam); the genetic dam, a herd animal or an outside donor, is kept on the calf. Left empty, it is taken from the embryo transfer recorded on the breeding screen.',
  dnaLab: 'DNA laboratory',
  pedigree: 'Pedigree', inbreeding: 'Inbreeding (F)', place: 'Place', ancestor: 'Animal', noPedigree: 'No parents on record.',
  uncertainSire: 'Paternity uncertain: the birth review’s candidate sires stand in, with their probabilities; F is the expectation over them.',
  notHerd: 'outside the farm',
  easeScale: 'Calving-ease scale', easeNote: 'The farm’s own grades: Herdbook ships none. Without a grade the scale is unset and a calving records no calving ease.',
  code: 'Code', meaning: 'Meaning', grade: 'Grade', addGrade: 'Add a grade', removeGrade: 'Remove grade',
  ageOfDam: 'Age-of-dam adjustments (weaning weight)', ageOfDamNote: 'Added to the 205-day adjusted weaning weight by the dam’s age at calving (BIF Guidelines). None: no adjustment.',
  line: 'Line', minDays: 'Dam’s age from (days)', maxDays: 'to (days)', maleKG: 'Bull calf (kg)', femaleKG: 'Heifer calf (kg)',
  addLine: 'Add a line', removeLine: 'Remove line',
  reports: 'Reports', report: 'Report', report_calving: 'Calving percentage', 'report_calving-spread': 'Calving spread',
  report_scans: 'Pregnancy scans', report_weaning: 'Weaning weights (205-day adjusted)', report_gain: 'Daily gain by group',
  calvingFrom: 'Calving from', seasonFrom: 'Breeding season from', periodBackwards: 'Choose a period whose first day is not after its last.',
  downloadCSV: 'Download CSV', saveAgain: 'Save again:', offlineShort: 'offline',
  breedingSeason: 'Breeding season', femalesExposed: 'Females exposed', calvings: 'Calvings', calvesBorn: 'Calves born',
  calvesBornAlive: 'Calves born alive', calvingPercentage: 'Calving percentage (born alive per 100 exposed)',
  firstCalving: 'First calving', spreadChart: 'Calvings per 21-day period', spreadPeriods: 'The 21-day periods from the first calving',
  period: 'Period', days: 'Days', cumulative: 'Cumulative %', checks: 'Checks', animalsChecked: 'Animals checked',
  pregnancyRate: 'Pregnancy rate (pregnant per 100 pregnant or empty)',
  calvesAdjusted: 'Calves weaned with an adjusted weight', calvesMissing: 'Calves weaned without one (no birth weight or birth date)',
  noneWeaned: 'No calf weaned in the period has an adjusted weight.', bySire: 'By sire', byDamAge: 'By the dam’s age at calving',
  noSire: 'Sire not recorded', damAge: 'Dam’s age', unknown: 'Unknown', years: 'years', calves: 'Calves',
  meanAdjusted: 'Mean adjusted weight', range: 'Lightest – heaviest', meanGain: 'Mean daily gain', animalsGained: 'Animals weighed twice', perDay: 'day',
  weaningNote: 'The 205-day adjusted weight (BIF Guidelines): (weaning − birth weight) ÷ age in days × 205 + birth weight, plus the farm’s age-of-dam adjustment. A calf needs its birth date and birth weight.',
  recordWeaning: 'Record a weaning', calfTag: 'Calf (tag, EID or last digits)', weaningWeight: 'Weaning weight',
  weaningGroup: 'Weaning group (optional)', weaningSaved: 'Weaning recorded.', adjusted205: '205-day adjusted weight', adjustedWeaning: 'Adjusted weaning weight',
  weanedAt: 'weaned at', dayOld: 'day', daysOld: 'days', ageOfDamAdded: 'age-of-dam adjustment', noAdjusted: 'no adjusted weight yet; it lacks:',
  missing_birth_date: 'the birth date', missing_birth_weight: 'the birth weight', missing_weaning: 'a weaning',
  recordHeat: 'Record a heat', heatSaved: 'Heat recorded.', edit: 'Edit', delete: 'Delete', cancel: 'Cancel',
  editOutside: 'Edit outside animal', deleteOutside: 'Delete outside animal', outsideEdited: 'Outside animal changed.',
  outsideDeleted: 'Outside animal deleted.', deleteSure: 'Delete for good?', registry: 'Registry', registrationNumber: 'Registration number',
  matingAdvice: 'Mating advice', matingNote: 'The farm’s bulls that may serve her today, with the calf’s expected inbreeding (F), lowest first (the best 50).',
  advise: 'Show the bulls', matingFor: 'Bulls for', calfInbreeding: 'Calf’s inbreeding (F)', noBulls: 'No bull of the farm may serve her today.',
  registryScreen: 'Registry', holding: 'Holding', holdingNumber: 'Holding number', scheme: 'Identifier scheme',
  scheme_uk_cph: 'Great Britain: CPH (uk.cph)', scheme_de_hitier_bnr: 'Germany: HI-Tier holding number (de.hitier.bnr)', scheme_nl_ubn: 'Netherlands: UBN (nl.ubn)',
  scheme_ie_herd: 'Ireland: herd number (ie.herd)', scheme_nz_nait: 'New Zealand: NAIT number (nz.nait)', scheme_au_nlis_pic: 'Australia: PIC (au.nlis.pic)',
  herdMark: 'Herd mark (optional; in GB the 6 digits after UK on the ear tags)', keeperName: 'Keeper’s name', ruleSet: 'Rules the deadlines follow',
  rule_gb_cts: 'Great Britain: Cattle Tracing System', rule_de_hitier: 'Germany: HI-Tier (Viehverkehrsverordnung)', rule_eu_2021_520: 'EU: Regulation 2021/520', rule_nl_rvo: 'Netherlands: RVO',
  herdType: 'Herd type', herd_beef: 'Beef', herd_dairy: 'Dairy (in GB a dairy calf’s first tag is due within 36 hours)',
  holdingZone: 'Time zone of the deadlines (IANA, such as Europe/London)', country: 'Country',
  noHolding: 'This farm is on no holding yet. Enter the holding as the registry knows it: its notices and their deadlines follow from it.',
  saveHolding: 'Save the holding', editHolding: 'Edit the holding', holdingSaved: 'Holding saved.', fixFields: 'Check the fields marked below.',
  notices: 'Notices to the registry', noNotices: 'Nothing to report to the registry.', toReport: 'To report', awaitingAnswer: 'Sent, waiting for the registry’s answer', noticesDone: 'Done',
  notice_birth: 'Birth registration', notice_tagging: 'Tagging', notice_death: 'Death', notice_move_on: 'Arrival (move on)', notice_move_off: 'Departure (move off)',
  notice_tag_replacement: 'Replacement tag', notice_correction: 'Correction',
  state_due: 'Due', state_overdue: 'Overdue', state_done: 'Done', state_sent: 'Sent', state_accepted: 'Accepted', state_rejected: 'Rejected', state_superseded: 'Replaced by a correction',
  dayLeft: 'day left', daysLeft: 'days left', dayOverdue: 'day overdue', daysOverdue: 'days overdue', dueToday: 'due today',
  deadline: 'Deadline', event: 'Event on', doneOn: 'done on', doneLate: 'after the deadline', rule: 'Rule', reference: 'Reference',
  rejectedWhy: 'The registry rejected it:', correctThen: 'Correct the animal’s record, then report it again:',
  recordAnswer: 'Record what was sent or answered', registryReference: 'Registry reference (optional)', rejectCause: 'The registry’s reason (required for a reject)',
  answerSaved: 'Recorded.', legalClocks: 'Legal clocks',
  reconciliation: 'Compare with the registry',
  reconcileLead: 'Paste the registry’s herd list (CTS: one animal a line, TAG BREED SEX BORN ARRIVED, ? for unknown) or pick its file: the differences from your herd book are listed with what to do.',
  herdList: 'Herd list', herdListFile: 'Herd list file', compare: 'Compare', agree: 'The registry and your herd book agree.', differences: 'Differences',
  needsNetwork: 'This needs the network: it is a question to the server.',
  sending: 'Sending to the registry', sendingLead: 'Herdbook sends the notices to the registry itself with the keeper’s user name and password there. The password is kept sealed and never shown again.',
  sendingNone: 'No registry credentials are saved: notices are reported by hand.', registryService: 'Registry service', noRegistryService: 'none on this server',
  registryUser: 'User name at the registry', registryPassword: 'Password at the registry', keepPassword: 'Leave empty to keep the saved one.',
  sendAutomatically: 'Send notices automatically', sendingActive: 'On: notices are sent', sendingWaiting: 'On, but not sending', sendingOff: 'Off',
  lastError: 'Last problem', saveSending: 'Save the credentials', sendingSaved: 'Credentials saved.', readFromRegistry: 'Read from the registry',
  diff_only_in_registry: 'On the registry, not in your herd book.', diff_only_in_book: 'In your herd book, not on the registry.', diff_differs: 'differs:',
  fix_report_birth: 'Register its birth with the registry.', fix_report_move_on: 'Report its arrival (move on) to the registry.',
  fix_record_in_book_or_report_departure: 'Record its birth or arrival in your herd book; or, if it left or died, report that to the registry.',
  fix_amend_book_or_correct_registry: 'If the registry is right, correct your herd book; if not, send the registry a correction.',
  field_sex: 'Sex', field_birth_date: 'Birth date', field_on_date: 'Arrival date', field_breed: 'Breed', field_dam: 'Dam',
  registrySays: 'the registry says', bookSays: 'your herd book says',
  // A new farm's start card and the ways to it (the forms' own strings are in screens/Onboard.tsx).
  newFarm: 'New farm', addAnimal: 'Add an animal', addMedicine: 'Add a medicine', startTitle: 'Get the farm going',
  startLead: 'What the farm needs before it works for you:', stepDone: 'done', stepAnimals: 'Add your animals', stepGroups: 'Make your groups',
  stepMedicines: 'Add your medicines and their purchases', stepBirth: 'Set the gestation for birth reviews',
  // At the crush: readers and scale heads (devices/, screens/Devices.tsx).
  devices: 'Reader and scale', reader: 'Reader', scale: 'Scale', connectSerial: 'Connect by cable', connectBluetooth: 'Connect by Bluetooth',
  disconnect: 'Disconnect', baudRate: 'Cable speed (baud)', dev_connecting: 'connecting…', dev_connected: 'connected', dev_disconnected: 'not connected',
  dev_error: 'error', devicesNone: 'This browser connects no reader or scale itself; a reader in keyboard mode types into the EID field. Chrome and Edge connect them by cable (Web Serial) or Bluetooth.',
  eidRead: 'Read', notAnimalCode: 'Not an animal’s code', onScale: 'On the scale', stable: 'stable', moving: 'moving', overload: 'overload', underload: 'underload',
  lastWeight: 'Last weight', noWeightYet: 'Not weighed yet', dueToCalve: 'Due to give birth', eidNotWeight: 'That was a tag read, not a weight: looking the animal up.',
  notKnownHere: 'not known on this device (offline)', scaleSession: 'A session on a scale that keeps its own file? Import it',
  // A scanned list on Treat and Move (screens/Forms.tsx).
  scanList: 'Scan a list', scanField: 'Scan or type an EID or tag, then Enter',
  scanNote: 'Each code adds its animal to the list; Enter here never saves. Save then records it for every animal in the list.',
  scanInList: 'in the list', scanTwice: 'already in the list, not added again', scanUnknown: 'no animal on the farm has this code; not added',
  scanSeveral: 'several animals match; scan or type the whole code', scanLooking: 'looking up…', removeFromList: 'Remove from the list',
  scanEmpty: 'Scan at least one animal first.', scanWait: 'Wait until every code has been looked up.',
  // The crush's treatment, draft and notes (screens/Forms.tsx, Weigh).
  crushNoTreatment: '— no treatment', crushDraft: 'Draft to a group', crushNoDraft: '— not drafted',
  crushAddNote: 'Add a note', crushNote: 'Note', crushNotes: 'Notes', noteSaved: 'note saved.',
  crushSaveNote: 'Save · next records what is filled in: the weight, the treatment, the draft and the note, each on its own. The treatment stays chosen for the next animal.',
  crushNothing: 'Nothing to save: enter a weight, choose a treatment or a group, or write a note.',
};
type Catalogue = typeof en;
const fr: Catalogue = {
  appName: 'Herdbook', signIn: 'Se connecter', signOut: 'Se déconnecter', signingIn: 'Connexion…',
  signInLead: 'Votre registre d’élevage, dans la cour et au bureau. Connectez-vous avec votre compte Herdbook.',
  offline: 'Hors ligne : dernier registre synchronisé ; les saisies sont mises en file.',
  farms: 'Exploitations', dashboard: 'Tableau de bord', register: 'Registre', weigh: 'Pesée', treat: 'Traiter',
  births: 'Naissances', settings: 'Réglages', skip: 'Aller au contenu', menu: 'Menu', loading: 'Chargement…',
  noFarms: 'Vous n’êtes membre d’aucune exploitation.',
  headCount: 'Effectif', onFarm: 'Présents', sold: 'Vendus', died: 'Morts', movedOut: 'Sortis',
  groups: 'Lots', tasksDue: 'Tâches à faire', underWithdrawal: 'En délai d’attente', meatClear: 'viande libre le',
  milkClear: 'lait libre le', unread: 'Notifications non lues', none: 'Aucune', markRead: 'Tout marquer lu',
  search: 'Rechercher', searchHint: 'Numéro, nom, IDE ou derniers chiffres', status: 'Statut', group: 'Lot', sex: 'Sexe',
  any: 'Tous', asOf: 'À la date du', animal: 'animal', animals: 'animaux', tag: 'Numéro', name: 'Nom', breed: 'Race',
  weight: 'Poids', male: 'Mâle', female: 'Femelle', ON_FARM: 'Présent', SOLD: 'Vendu', DIED: 'Mort',
  MOVED_OUT: 'Sorti', NOT_YET: 'Pas encore', lastSynced: 'Dernière synchro',
  profile: 'Profil', born: 'Né le', dam: 'Mère', sire: 'Père', offspring: 'Descendance', identifiers: 'Identifiants',
  timeline: 'Historique', weights: 'Poids', withdrawal: 'Délai d’attente', noWithdrawal: 'Aucun délai en cours.',
  adg: 'GMQ', sale: 'Vente', death: 'Mort', buyer: 'Acheteur', cause: 'Cause', slaughter: 'Abattu pour la consommation',
  date: 'Date', save: 'Enregistrer', saved: 'Enregistré.', queued: 'Gardé sur l’appareil ; envoyé dès le retour du réseau.',
  next: 'Suivant', eidOrTag: 'IDE ou numéro', kg: 'kg', lb: 'lb', notFound: 'Aucun animal trouvé.', session: 'Cette séance',
  withdrawalWarning: 'Alerte délai d’attente', acknowledge: 'J’ai compris : enregistrer quand même', refused: 'Refusé',
  medicine: 'Médicament', dose: 'Dose', unit: 'Unité', animalOrGroup: 'Numéro de l’animal (ou choisir un lot)',
  treatmentSaved: 'Traitement enregistré.', outbox: 'Saisies en file', sent: 'Envoyé', failed: 'Échec', dismiss: 'Retirer',
  damTag: 'Numéro de la mère', birthDate: 'Date de naissance', review: 'Examiner les preuves', candidates: 'Pères possibles',
  conception: 'Fenêtre de conception', reasons: 'Raisons', preview: 'Aperçu', approve: 'Approuver', approved: 'Approuvé.',
  birthIsCalving: 'Approuver une naissance enregistre son vêlage : le veau entre au registre, les bilans le comptent et ses tâches le nomment. Pour des jumeaux, un poids de naissance ou un père connu, passez par le formulaire de vêlage :',
  calvingIsBirth: 'Un vêlage est le même enregistrement qu’une naissance approuvée. Pour examiner d’abord les pères possibles, commencez par l’écran Naissances :',
  tasks: 'Tâches de suivi', language: 'Langue', units: 'Unité de poids', dateFormat: 'Format de date',
  dateISO: 'Année-mois-jour', dateLocal: 'Selon ma langue',
  pickDate: 'Choisir dans un calendrier', writeDateAs: 'Écrivez la date ainsi :', dateNotAfter: 'La date ne peut pas être après le', dateNotBefore: 'La date ne peut pas être avant le', signInAgain: 'Connectez-vous pour envoyer la file.',
  toReview: 'À revoir', waiting: 'En attente d’envoi',
  reviewLead: 'Le serveur a refusé ces saisies. Corrigez-en une et renvoyez-la, ou abandonnez-la : elle ne sera alors pas enregistrée.',
  resend: 'Renvoyer', discard: 'Abandonner', discardSure: 'J’ai compris : elle ne sera pas enregistrée', serverReason: 'Motif du serveur',
  notSentYet: 'Pas encore sur le serveur :', signOutLead: 'Une partie de votre travail n’est pas encore sur le serveur. Qu’en faire ?',
  sendFirst: 'L’envoyer, puis se déconnecter', keepForNext: 'La garder sur cet appareil, verrouillée, jusqu’à ma prochaine connexion',
  discardAll: 'Se déconnecter et l’abandonner', stillUnsent: 'Une partie n’a pas pu être envoyée : voir la liste des saisies en file.',
  sessionEnded: 'Votre session a pris fin : reconnectez-vous pour envoyer ce qui attend ici. Rien de ce qui est en file n’est perdu.',
  writesBack: 'Les saisies gardées à votre dernière déconnexion sont revenues dans la file :', writesUnopened: 'Des saisies gardées sur cet appareil n’ont pas pu être ouvertes (le mot de passe a changé depuis) :',
  offlineSession: 'Vous restez connecté : la session reprendra au retour du réseau.',
  keptAnimal: 'Pas encore lu sur cet appareil : la copie du registre gardé. Son historique viendra au retour du réseau.', notKept: 'Cet animal n’est pas dans le registre gardé sur cet appareil.',
  error: 'Une erreur est survenue', open: 'Ouvrir', sync: 'Synchroniser', moveTo: 'Déplacer',
  noLabelMeat: 'L’étiquette ne donne pas de délai viande.', labelNote: 'Selon l’étiquette ; les règles de l’exploitation ou le vétérinaire peuvent l’allonger.',
  titleBirthHistory: 'Historique des naissances', titleRegister: 'Registre', titleMedicineBook: 'Registre des médicaments', titleImport: 'Import du registre', batch: 'lot',
  rec_profile: 'fiche', rec_castration: 'castration', rec_exposure: 'mise au taureau', rec_membership: 'entrée dans un lot', rec_membership_end: 'sortie d’un lot',
  rec_purchase: 'achat', rec_movement_in: 'entrée', rec_movement_out: 'sortie', rec_birth: 'naissance', rec_identifier: 'identifiant', rec_death: 'mort',
  rec_sale: 'vente', rec_weight: 'pesée', rec_dna_parentage: 'filiation ADN', rec_treatment: 'traitement', rec_heat: 'chaleurs', rec_insemination: 'insémination',
  rec_hand_mating: 'saillie en main', rec_embryo_transfer: 'transfert d’embryon', rec_pregnancy_check: 'diagnostic de gestation', rec_weaning: 'sevrage', rec_pedigree: 'pedigree',
  navHerd: 'Troupeau', navBreeding: 'Reproduction', navHealth: 'Santé', navBook: 'Registres', navFarm: 'Exploitation', navYou: 'Vous',
  taskBoard: 'Tâches', task_TODO: 'À faire', task_DONE: 'Fait', task_CANCELLED: 'Annulé',
  medicines: 'Médicaments', inspectorBook: 'Ouvrir le registre pour le contrôleur', meatDays: 'Viande (jours)', milkHours: 'Lait (heures)',
  farmSettings: 'Réglages de l’exploitation', members: 'Membres', timeZone: 'Fuseau horaire (IANA, par exemple Europe/Paris)',
  withdrawalRules: 'Règles de délai hors AMM', rules_GB_VMR_2013: 'Grande-Bretagne : VMR 2013, annexe 4', rules_EU_2019_6: 'UE : règlement 2019/6, article 115',
  organic: 'Exploitation bio (délais doublés)', allowTestTags: 'Accepter les transpondeurs de test (code pays 999)',
  breedingAgeFemale: 'Âge minimal de la mère à la mise bas (jours)', breedingAgeMale: 'Âge minimal du père (jours)', calvingInterval: 'Écart minimal entre deux mises bas (jours)',
  unset: 'Non défini', unsetNote: 'Herdbook n’a pas de valeur par défaut : une limite vide n’est pas vérifiée.', ownerOnly: 'Seul un propriétaire peut modifier ceci.',
  lastChanged: 'modifié le', neverSet: 'jamais défini', role: 'Rôle', role_OWNER: 'Propriétaire', role_EDITOR: 'Éditeur', role_READER: 'Lecteur',
  phone: 'Numéro de téléphone', you: 'vous', addMember: 'Ajouter un membre', removeMember: 'Retirer', addMemberNote: 'Il lui faut un compte Herdbook avec ce numéro.',
  moveToGroup: 'Changer de lot', animalTags: 'Numéros ou IDE des animaux (séparés par des espaces ou des virgules)', from: 'À partir du', moved: 'déplacé.',
  moveNote: 'Chaque animal entre dans le lot ce jour-là ; le registre garde où il était avant.',
  audit: 'Journal des modifications', until: 'Jusqu’au', show: 'Afficher', more: 'Afficher plus', reason: 'Motif', before: 'Avant', after: 'Après',
  audit_create: 'Créé', audit_update: 'Modifié', audit_delete: 'Supprimé', audit_void: 'Annulé', audit_amend: 'Rectifié',
  auditRecord: 'enregistrement', auditItem: 'élément d’enregistrement', operator: 'opérateur (ligne de commande)',
  calving: 'Vêlage', sireTag: 'Père (facultatif)', sireBasis: 'Père connu par', basis_service: 'Saillie', basis_natural_service: 'Au pré avec lui (monte naturelle)', basis_review: 'Examen de la naissance', basis_dna: 'ADN',
  calf: 'Le veau', weightAtBirth: 'Poids de naissance', alive: 'Vivant', stillborn: 'Mort-né', calvingEase: 'Facilité de vêlage', noEaseScale: 'L’exploitation n’a pas encore de grille de facilité de vêlage (réglages).',
  calvingSaved: 'Vêlage enregistré.', calvingKnown: 'Ce vêlage était déjà enregistré : rien n’a changé.', recentCalvings: 'Derniers vêlages',
  correctOnAnimal: 'Corriger depuis la fiche de l’animal', correct: 'Corriger', whatToDo: 'Que corriger', item: 'Ligne', amendItem: 'Corriger les valeurs', voidItem: 'Annuler cette ligne seulement', voidRecord: 'Annuler tout l’enregistrement',
  fact_date: 'Jour', fact_start_date: 'Premier jour', fact_end_date: 'Dernier jour', saveCorrection: 'Enregistrer la correction', void: 'Annuler', amended: 'Corrigé : l’ancienne ligne est conservée, marquée remplacée.', voided: 'Annulé : la ligne reste au registre, marquée annulée.',
  amendNote: 'Le registre garde l’ancienne ligne, marquée remplacée et liée à la correction, avec votre nom, l’heure et le motif.',
  voidFromTrail: 'Un enregistrement sans animal (un traitement de lot, par exemple) s’annule ici ; celui d’un animal se corrige aussi depuis sa fiche.',
  voidRecordNote: 'L’enregistrement reste au registre, marqué annulé, avec votre nom, l’heure et le motif ; il ne compte plus.',
  voidNote: 'La ligne reste au registre, marquée annulée, avec votre nom, l’heure et le motif ; elle ne compte plus.',
  correctNote: 'Une correction demande un motif et laisse une trace :', endMembership: 'Terminer l’appartenance', leftOn: 'A quitté le lot le', membershipEnded: 'Appartenance terminée.',
  endNote: 'Son dernier jour dans le lot est la veille. L’appartenance reste au registre ; rien n’est effacé.',
  notifications: 'Notifications', unreadCount: 'non lues', unreadCountOne: 'non lue', unreadOne: 'Non lue', readOn: 'Lue le', markOneRead: 'Marquer lue', markedRead: 'Marquées lues.', allNotifications: 'Toutes les notifications et canaux',
  channels: 'Canaux', channelsFarm: 'Canaux pour', channelsDefault: 'Canaux par défaut des autres exploitations', emailAddress: 'Adresse e-mail (pour toutes les exploitations)',
  noEmailAddress: 'Sans adresse e-mail, aucun e-mail n’est envoyé.', channel_IN_APP: 'Dans l’application', channel_EMAIL: 'E-mail', channel_SMS: 'SMS',
  source_FARM: 'Votre choix pour cette exploitation.', source_DEFAULT: 'Votre choix par défaut s’applique tant que vous n’avez pas choisi pour cette exploitation.', source_ROLE: 'Rien n’est encore choisi : les réglages de votre rôle s’appliquent.',
  details: 'Détails', withdrawalPlain: 'Cet animal est en délai d’attente viande. Sa viande ne doit pas entrer dans la chaîne alimentaire avant la date de libération ; l’acheteur doit être prévenu.',
  breeding: 'Reproduction', recordService: 'Enregistrer une mise à la reproduction', serviceKind: 'Type',
  kind_insemination: 'Insémination', kind_hand_mating: 'Saillie en main', kind_embryo_transfer: 'Transfert d’embryon',
  femaleTag: 'Femelle (numéro, IDE ou derniers chiffres)', recipientTag: 'Receveuse (numéro, IDE ou derniers chiffres)',
  herdAnimal: 'Un animal du troupeau : saisir son numéro', outsideAnimals: 'Reproducteurs et donneuses extérieurs', tagOf: 'numéro',
  donor: 'Donneuse (mère génétique)', straw: 'Paillette ou lot de semence', technician: 'Inséminateur', embryo: 'Embryon (lot ou identifiant)',
  serviceSaved: 'Mise à la reproduction enregistrée.', recordScan: 'Enregistrer un diagnostic de gestation', method: 'Méthode',
  method_SCAN: 'Échographie', method_PALPATION: 'Palpation', method_BLOOD: 'Prise de sang', result: 'Résultat',
  result_PREGNANT: 'Gestante', result_EMPTY: 'Vide', result_RECHECK: 'À revoir', foetalAge: 'Âge du fœtus en jours (facultatif)',
  scanSaved: 'Diagnostic enregistré.', dueList: 'Vêlages attendus', expected: 'Attendu', datedBy: 'Daté par', checked: 'Diagnostic du',
  due_service: 'Saillie ou IA', due_foetal_age: 'Âge du fœtus', due_unknown: 'Inconnu : aucune saillie ne correspond et pas d’âge du fœtus',
  dueNote: 'Les femelles dont le dernier diagnostic est positif et qui n’ont pas vêlé depuis. Pas de date attendue tant que la durée de gestation de l’exploitation n’est pas définie.',
  addOutside: 'Ajouter un reproducteur ou une donneuse extérieurs', outsideNote: 'Un taureau d’IA ou une donneuse d’embryons qui ne vient jamais sur l’exploitation.', outsideSaved: 'Animal extérieur enregistré.',
  addCalf: 'Ajouter un second veau (jumeaux)', removeCalf: 'Retirer le second veau', calf2: 'Le second veau',
  freemartin: 'Free-martin (génisse jumelle d’un mâle)', twins: 'jumeaux', etCalving: 'Vêlage issu de transfert d’embryon',
  geneticDam: 'Mère génétique (donneuse)', etNote: 'La mère ci-dessus a porté le veau (mère porteuse) ; la mère génétique, du troupeau ou donneuse extérieure, est gardée avec le veau. Laissée vide, elle est prise du transfert d’embryon enregistré sur l’écran Reproduction.',
  dnaLab: 'Laboratoire ADN',
  pedigree: 'Généalogie', inbreeding: 'Consanguinité (F)', place: 'Place', ancestor: 'Animal', noPedigree: 'Aucun parent enregistré.',
  uncertainSire: 'Paternité incertaine : les pères possibles de l’examen de la naissance comptent avec leurs probabilités ; F en est l’espérance.',
  notHerd: 'extérieur à l’exploitation',
  easeScale: 'Grille de facilité de vêlage', easeNote: 'Les niveaux propres à l’exploitation : Herdbook n’en fournit aucun. Sans niveau, la grille n’est pas définie et un vêlage n’enregistre pas de facilité.',
  code: 'Code', meaning: 'Signification', grade: 'Niveau', addGrade: 'Ajouter un niveau', removeGrade: 'Retirer le niveau',
  ageOfDam: 'Ajustements selon l’âge de la mère (poids au sevrage)', ageOfDamNote: 'Ajoutés au poids au sevrage ajusté à 205 jours selon l’âge de la mère au vêlage (BIF). Aucun : pas d’ajustement.',
  line: 'Ligne', minDays: 'Âge de la mère de (jours)', maxDays: 'à (jours)', maleKG: 'Veau mâle (kg)', femaleKG: 'Velle (kg)',
  addLine: 'Ajouter une ligne', removeLine: 'Retirer la ligne',
  reports: 'Bilans', report: 'Bilan', report_calving: 'Taux de vêlage', 'report_calving-spread': 'Étalement des vêlages',
  report_scans: 'Diagnostics de gestation', report_weaning: 'Poids au sevrage (ajustés à 205 jours)', report_gain: 'Croissance par lot',
  calvingFrom: 'Vêlages du', seasonFrom: 'Saison de reproduction du', periodBackwards: 'Choisissez une période dont le premier jour n’est pas après le dernier.',
  downloadCSV: 'Télécharger le CSV', saveAgain: 'Enregistrer de nouveau :', offlineShort: 'hors ligne',
  breedingSeason: 'Saison de reproduction', femalesExposed: 'Femelles mises à la reproduction', calvings: 'Vêlages', calvesBorn: 'Veaux nés',
  calvesBornAlive: 'Veaux nés vivants', calvingPercentage: 'Taux de vêlage (nés vivants pour 100 femelles mises à la reproduction)',
  firstCalving: 'Premier vêlage', spreadChart: 'Vêlages par période de 21 jours', spreadPeriods: 'Les périodes de 21 jours depuis le premier vêlage',
  period: 'Période', days: 'Jours', cumulative: '% cumulé', checks: 'Diagnostics', animalsChecked: 'Animaux diagnostiqués',
  pregnancyRate: 'Taux de gestation (gestantes pour 100 gestantes ou vides)',
  calvesAdjusted: 'Veaux sevrés avec un poids ajusté', calvesMissing: 'Veaux sevrés sans poids ajusté (sans poids ou date de naissance)',
  noneWeaned: 'Aucun veau sevré dans la période n’a de poids ajusté.', bySire: 'Par père', byDamAge: 'Selon l’âge de la mère au vêlage',
  noSire: 'Père non enregistré', damAge: 'Âge de la mère', unknown: 'Inconnu', years: 'ans', calves: 'Veaux',
  meanAdjusted: 'Poids ajusté moyen', range: 'Du plus léger au plus lourd', meanGain: 'GMQ moyen', animalsGained: 'Animaux pesés deux fois', perDay: 'jour',
  weaningNote: 'Le poids ajusté à 205 jours (BIF) : (poids au sevrage − poids de naissance) ÷ âge en jours × 205 + poids de naissance, plus l’ajustement de l’exploitation selon l’âge de la mère. Il faut au veau sa date et son poids de naissance.',
  recordWeaning: 'Enregistrer un sevrage', calfTag: 'Veau (numéro, EID ou derniers chiffres)', weaningWeight: 'Poids au sevrage',
  weaningGroup: 'Lot de sevrage (facultatif)', weaningSaved: 'Sevrage enregistré.', adjusted205: 'poids ajusté à 205 jours', adjustedWeaning: 'Poids de sevrage ajusté',
  weanedAt: 'sevré à', dayOld: 'jour', daysOld: 'jours', ageOfDamAdded: 'ajustement selon l’âge de la mère', noAdjusted: 'pas encore de poids ajusté ; il manque :',
  missing_birth_date: 'la date de naissance', missing_birth_weight: 'le poids de naissance', missing_weaning: 'un sevrage',
  recordHeat: 'Enregistrer des chaleurs', heatSaved: 'Chaleurs enregistrées.', edit: 'Modifier', delete: 'Supprimer', cancel: 'Annuler',
  editOutside: 'Modifier l’animal extérieur', deleteOutside: 'Supprimer l’animal extérieur', outsideEdited: 'Animal extérieur modifié.',
  outsideDeleted: 'Animal extérieur supprimé.', deleteSure: 'Supprimer définitivement ?', registry: 'Livre généalogique', registrationNumber: 'Numéro d’inscription',
  matingAdvice: 'Conseil d’accouplement', matingNote: 'Les taureaux de l’exploitation qui peuvent la saillir aujourd’hui, avec la consanguinité attendue du veau (F), la plus faible d’abord (les 50 meilleurs).',
  advise: 'Voir les taureaux', matingFor: 'Taureaux pour', calfInbreeding: 'Consanguinité du veau (F)', noBulls: 'Aucun taureau de l’exploitation ne peut la saillir aujourd’hui.',
  registryScreen: 'Registre', holding: 'Exploitation', holdingNumber: 'Numéro d’exploitation', scheme: 'Système d’identification',
  scheme_uk_cph: 'Grande-Bretagne : CPH (uk.cph)', scheme_de_hitier_bnr: 'Allemagne : numéro HI-Tier (de.hitier.bnr)', scheme_nl_ubn: 'Pays-Bas : UBN (nl.ubn)',
  scheme_ie_herd: 'Irlande : numéro de cheptel (ie.herd)', scheme_nz_nait: 'Nouvelle-Zélande : numéro NAIT (nz.nait)', scheme_au_nlis_pic: 'Australie : PIC (au.nlis.pic)',
  herdMark: 'Marque de cheptel (facultative ; en Grande-Bretagne les 6 chiffres après UK sur les boucles)', keeperName: 'Nom du détenteur', ruleSet: 'Règles des délais',
  rule_gb_cts: 'Grande-Bretagne : Cattle Tracing System', rule_de_hitier: 'Allemagne : HI-Tier (Viehverkehrsverordnung)', rule_eu_2021_520: 'UE : règlement 2021/520', rule_nl_rvo: 'Pays-Bas : RVO',
  herdType: 'Type de troupeau', herd_beef: 'Allaitant', herd_dairy: 'Laitier (en Grande-Bretagne la première boucle d’un veau laitier est due sous 36 heures)',
  holdingZone: 'Fuseau horaire des délais (IANA, par exemple Europe/Paris)', country: 'Pays',
  noHolding: 'Cette ferme n’est rattachée à aucune exploitation. Saisissez l’exploitation telle que le registre la connaît : ses notifications et leurs délais en découlent.',
  saveHolding: 'Enregistrer l’exploitation', editHolding: 'Modifier l’exploitation', holdingSaved: 'Exploitation enregistrée.', fixFields: 'Vérifiez les champs signalés ci-dessous.',
  notices: 'Notifications au registre', noNotices: 'Rien à notifier au registre.', toReport: 'À notifier', awaitingAnswer: 'Envoyées, en attente de la réponse du registre', noticesDone: 'Faites',
  notice_birth: 'Déclaration de naissance', notice_tagging: 'Pose des boucles', notice_death: 'Mort', notice_move_on: 'Entrée', notice_move_off: 'Sortie',
  notice_tag_replacement: 'Boucle de remplacement', notice_correction: 'Rectification',
  state_due: 'À faire', state_overdue: 'En retard', state_done: 'Faite', state_sent: 'Envoyée', state_accepted: 'Acceptée', state_rejected: 'Rejetée', state_superseded: 'Remplacée par une rectification',
  dayLeft: 'jour restant', daysLeft: 'jours restants', dayOverdue: 'jour de retard', daysOverdue: 'jours de retard', dueToday: 'à faire aujourd’hui',
  deadline: 'Date limite', event: 'Événement le', doneOn: 'faite le', doneLate: 'après la date limite', rule: 'Règle', reference: 'Référence',
  rejectedWhy: 'Le registre l’a rejetée :', correctThen: 'Rectifiez la fiche de l’animal, puis notifiez à nouveau :',
  recordAnswer: 'Noter l’envoi ou la réponse', registryReference: 'Référence du registre (facultative)', rejectCause: 'Le motif du registre (obligatoire pour un rejet)',
  answerSaved: 'Noté.', legalClocks: 'Délais légaux',
  reconciliation: 'Comparer avec le registre',
  reconcileLead: 'Collez la liste du cheptel du registre (CTS : un animal par ligne, BOUCLE RACE SEXE NÉ ENTRÉ, ? si inconnu) ou choisissez son fichier : les écarts avec votre livre sont listés avec la marche à suivre.',
  herdList: 'Liste du cheptel', herdListFile: 'Fichier de la liste du cheptel', compare: 'Comparer', agree: 'Le registre et votre livre concordent.', differences: 'Écarts',
  needsNetwork: 'Il faut le réseau : c’est une question au serveur.',
  sending: 'Envoi au registre', sendingLead: 'Herdbook envoie les déclarations au registre lui-même avec l’identifiant et le mot de passe du détenteur. Le mot de passe est gardé scellé et n’est plus jamais affiché.',
  sendingNone: 'Aucun identifiant du registre n’est enregistré : les déclarations se font à la main.', registryService: 'Service du registre', noRegistryService: 'aucun sur ce serveur',
  registryUser: 'Identifiant au registre', registryPassword: 'Mot de passe au registre', keepPassword: 'Laisser vide pour garder celui enregistré.',
  sendAutomatically: 'Envoyer les déclarations automatiquement', sendingActive: 'Oui : les déclarations sont envoyées', sendingWaiting: 'Oui, mais rien n’est envoyé', sendingOff: 'Non',
  lastError: 'Dernier problème', saveSending: 'Enregistrer les identifiants', sendingSaved: 'Identifiants enregistrés.', readFromRegistry: 'Lire au registre',
  diff_only_in_registry: 'Au registre, pas dans votre livre.', diff_only_in_book: 'Dans votre livre, pas au registre.', diff_differs: 'diffère :',
  fix_report_birth: 'Déclarez sa naissance au registre.', fix_report_move_on: 'Déclarez son entrée au registre.',
  fix_record_in_book_or_report_departure: 'Notez sa naissance ou son entrée dans votre livre ; ou, s’il est parti ou mort, déclarez-le au registre.',
  fix_amend_book_or_correct_registry: 'Si le registre a raison, rectifiez votre livre ; sinon, envoyez une rectification au registre.',
  field_sex: 'Sexe', field_birth_date: 'Date de naissance', field_on_date: 'Date d’entrée', field_breed: 'Race', field_dam: 'Mère',
  registrySays: 'le registre indique', bookSays: 'votre livre indique',
  // La carte de départ d’une nouvelle exploitation (les textes des formulaires sont dans screens/Onboard.tsx).
  newFarm: 'Nouvelle exploitation', addAnimal: 'Ajouter un animal', addMedicine: 'Ajouter un médicament',
  startTitle: 'Mettre l’exploitation en route', startLead: 'Ce qu’il faut à l’exploitation pour travailler pour vous :', stepDone: 'fait',
  stepAnimals: 'Ajoutez vos animaux', stepGroups: 'Créez vos lots', stepMedicines: 'Ajoutez vos médicaments et leurs achats',
  stepBirth: 'Réglez la gestation pour la revue des naissances',
  // Au couloir de contention : lecteurs et indicateurs de pesée (devices/, screens/Devices.tsx).
  devices: 'Lecteur et bascule', reader: 'Lecteur', scale: 'Bascule', connectSerial: 'Connecter par câble', connectBluetooth: 'Connecter en Bluetooth',
  disconnect: 'Déconnecter', baudRate: 'Vitesse du câble (bauds)', dev_connecting: 'connexion…', dev_connected: 'connecté', dev_disconnected: 'non connecté',
  dev_error: 'erreur', devicesNone: 'Ce navigateur ne connecte lui-même ni lecteur ni bascule ; un lecteur en mode clavier écrit dans le champ IDE. Chrome et Edge les connectent par câble (Web Serial) ou en Bluetooth.',
  eidRead: 'Lu', notAnimalCode: 'Pas le code d’un animal', onScale: 'Sur la bascule', stable: 'stable', moving: 'en mouvement', overload: 'surcharge', underload: 'sous-charge',
  lastWeight: 'Dernière pesée', noWeightYet: 'Jamais pesé', dueToCalve: 'Mise bas prévue', eidNotWeight: 'C’était une lecture de boucle, pas un poids : recherche de l’animal.',
  notKnownHere: 'inconnu sur cet appareil (hors ligne)', scaleSession: 'Une séance sur une bascule qui garde son propre fichier ? L’importer',
  // Une liste scannée, pour Traiter et Déplacer (screens/Forms.tsx).
  scanList: 'Scanner une liste', scanField: 'Scannez ou tapez un IDE ou un numéro, puis Entrée',
  scanNote: 'Chaque code ajoute son animal à la liste ; Entrée ici n’enregistre jamais. Enregistrer le saisit ensuite pour chaque animal de la liste.',
  scanInList: 'dans la liste', scanTwice: 'déjà dans la liste, pas ajouté une seconde fois', scanUnknown: 'aucun animal de l’exploitation n’a ce code ; pas ajouté',
  scanSeveral: 'plusieurs animaux correspondent ; scannez ou tapez le code entier', scanLooking: 'recherche…', removeFromList: 'Retirer de la liste',
  scanEmpty: 'Scannez d’abord au moins un animal.', scanWait: 'Attendez que chaque code ait été cherché.',
  // Traitement, tri et notes au couloir de contention (screens/Forms.tsx, Weigh).
  crushNoTreatment: '— pas de traitement', crushDraft: 'Trier vers un lot', crushNoDraft: '— pas trié',
  crushAddNote: 'Ajouter une note', crushNote: 'Note', crushNotes: 'Notes', noteSaved: 'note enregistrée.',
  crushSaveNote: 'Enregistrer · suivant saisit ce qui est rempli : le poids, le traitement, le tri et la note, chacun à part. Le traitement reste choisi pour l’animal suivant.',
  crushNothing: 'Rien à enregistrer : saisissez un poids, choisissez un traitement ou un lot, ou écrivez une note.',
};
export type Key = keyof Catalogue;
export const catalogues = { en, fr } as const;
export type Lang = keyof typeof catalogues;

export interface Prefs { lang: Lang; unit: 'kg' | 'lb'; dates: 'iso' | 'local' }
function load(): Prefs {
  const saved = JSON.parse(localStorage.getItem('hb.prefs') || '{}') as Partial<Prefs>;
  const lang: Lang = saved.lang ?? (navigator.language.startsWith('fr') ? 'fr' : 'en');
  return { lang, unit: saved.unit ?? 'kg', dates: saved.dates ?? 'iso' };
}
export let prefs: Prefs = load();
const prefListeners = new Set<() => void>();
/** onPrefs calls f after every change of the preferences (the shell draws itself again); it answers the unsubscribe. */
export function onPrefs(f: () => void): () => void {
  prefListeners.add(f);
  return () => { prefListeners.delete(f); };
}
export function setPrefs(p: Prefs): void {
  prefs = p;
  localStorage.setItem('hb.prefs', JSON.stringify(p));
  document.documentElement.lang = p.lang;
  prefListeners.forEach((f) => f());
}
document.documentElement.lang = prefs.lang;

export const t = (k: Key): string => catalogues[prefs.lang][k];

/** count writes n with the word that agrees with it: one (the singular key) or other (the
 * plural), by the language's own rule (CLDR's plural rules): English says "1 animal" and "0
 * animals"; French takes the singular when the integer part is 0 or 1 ("0 animal", "1
 * animal"). Written out for the app's two languages: Intl.PluralRules costs several
 * milliseconds of the page's start the first time it is made. */
export function count(n: number, one: Key, other: Key): string {
  const single = prefs.lang === 'fr' ? Math.trunc(Math.abs(n)) <= 1 : n === 1;
  return `${n} ${t(single ? one : other)}`;
}

/** decimal writes n in the user's language to at most digits decimals, without trailing
 * zeros, as Intl.NumberFormat(lang, { maximumFractionDigits: digits }) does: English groups
 * thousands with a comma and marks decimals with a point ("1,234.5"), French groups with a
 * narrow no-break space and marks decimals with a comma ("1 234,5"); the number's shortest
 * decimal form (0.975, not the binary 0.97499…) is rounded, halves away from zero. shift
 * scales it by a power of ten first, in decimal (a percentage is 2). Written out, because
 * making the first Intl.NumberFormat loads the locale's data on the main thread (15 to 30 ms
 * on a desktop, four times that on a phone) while the register and the animal page draw.
 * Checked against Intl.NumberFormat on many thousands of values (docs/web.md). */
export function decimal(n: number, digits: number, shift = 0): string {
  if (!Number.isFinite(n)) return String(n);
  const [int, frac] = roundDecimal(Math.abs(n), digits, shift);
  const [group, point] = prefs.lang === 'fr' ? ['\u202f', ','] : [',', '.'];
  const kept = frac.replace(/0+$/, '');
  const sign = n < 0 && (/[1-9]/.test(int) || kept !== '') ? '-' : '';
  return sign + int.replace(/\B(?=(\d{3})+$)/g, group) + (kept ? point + kept : '');
}

/** roundDecimal rounds x ≥ 0, times 10^shift, to digits decimals: its integer and fraction
 * digits. */
function roundDecimal(x: number, digits: number, shift: number): [string, string] {
  const s = String(x);
  if (s.includes('e')) {
    // Beyond 1e21 or under 1e-6: whole, or nothing at these few decimals.
    return x >= 1 ? [BigInt(Math.round(x)).toString() + '0'.repeat(shift), ''] : ['0', ''];
  }
  const [i = '0', f = ''] = s.split('.');
  const all = i + f;
  const at = i.length + shift; // where the point falls once scaled
  const whole = (all.slice(0, at) || '0').padEnd(at, '0');
  const frac = all.slice(at);
  if (frac.length <= digits) return [BigInt(whole).toString(), frac];
  const up = frac.charAt(digits) >= '5' ? 1n : 0n;
  const out = (BigInt(whole + frac.slice(0, digits)) + up).toString().padStart(digits + 1, '0');
  return [out.slice(0, out.length - digits), out.slice(out.length - digits)];
}

/** percent writes a share (0.0625) as a percentage to at most digits decimals ("6.25%", in
 * French "6,25 %"), as Intl.NumberFormat's percent style does. */
export function percent(share: number, digits: number): string {
  const v = decimal(share, digits, 2);
  return prefs.lang === 'fr' ? `${v}\u00a0%` : `${v}%`;
}

// The date formatter is made once per language and kept: making one costs far more than
// formatting with it (every row and chart label may format a date).
const dateFormats = new Map<Lang, Intl.DateTimeFormat>();

const LB = 0.45359237; // the international avoirdupois pound, in kg
/** fromKg is a weight in kg in the user's unit. */
export const fromKg = (kg: number): number => (prefs.unit === 'lb' ? kg / LB : kg);
export function showWeight(kg: number | null | undefined): string {
  if (kg == null) return '—';
  return `${decimal(fromKg(kg), 1)} ${prefs.unit}`;
}
/** showGain shows a daily gain in the user's unit per day, to hundredths ("0.98 kg/day"): a
 * gain is under a few kg, so the weight's tenths would round 0.975 kg/day to "1 kg". */
export function showGain(kg: number | null | undefined): string {
  if (kg == null) return '—';
  return `${decimal(fromKg(kg), 2)} ${prefs.unit}/${t('perDay')}`;
}
/** toKg reads a weight typed in the user's unit. */
export const toKg = (v: number): number => (prefs.unit === 'lb' ? v * LB : v);
export function showDate(d: string | null | undefined): string {
  if (!d) return '—';
  if (prefs.dates === 'iso') return d.slice(0, 10);
  const [y, m, day] = d.slice(0, 10).split('-').map(Number);
  let f = dateFormats.get(prefs.lang);
  if (!f) { f = new Intl.DateTimeFormat(prefs.lang, { dateStyle: 'medium', timeZone: 'UTC' }); dateFormats.set(prefs.lang, f); }
  return f.format(Date.UTC(y!, m! - 1, day!));
}
/** timeLeft says in words how long a deadline's clock has: "2 days left", "due today",
 * "3 days overdue" (daysLeft as the server counts it, in the holding's days). */
export function timeLeft(daysLeft: number): string {
  if (daysLeft === 0) return t('dueToday');
  return daysLeft > 0 ? count(daysLeft, 'dayLeft', 'daysLeft') : count(-daysLeft, 'dayOverdue', 'daysOverdue');
}
/** today is the device's local date (YYYY-MM-DD). */
export function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
