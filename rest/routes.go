package rest

import (
	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// routes lists the whole REST surface. Each path is served under every prefix in Prefixes.
func (h *Handler) routes() {
	h.handle("GET", "/openapi.json", h.openAPI)

	// Farms.
	h.handle("GET", "/farm", h.listFarms)
	h.handle("POST", "/farm", h.createFarm)
	h.handle("GET", "/farm/{farm_id}", h.getFarm)
	h.handle("PUT", "/farm/{farm_id}", h.updateFarm)
	h.handle("DELETE", "/farm/{farm_id}", h.deleteFarm)
	// The farm's own rules (docs/settings.md): time zone, withdrawal rule set, history limits.
	h.handle("GET", "/farm/{farm_id}/settings", h.getFarmSettings)
	h.handle("PUT", "/farm/{farm_id}/settings", h.putFarmSettings)

	// The holding a farm is on and its registry (docs/registry.md).
	h.handle("GET", "/farm/{farm_id}/holding", h.holdingOf("farm_id", h.svc.FarmHolding))
	h.handle("PUT", "/farm/{farm_id}/holding", h.putFarmHolding)
	h.handle("DELETE", "/farm/{farm_id}/holding", h.deleteFarmHolding)
	h.handle("GET", "/holdings/{holding_id}", h.holdingOf("holding_id", h.svc.Holding))
	h.handle("PUT", "/holdings/{holding_id}", h.putHolding)
	// The keeper's credentials at the registry, for the outbox that sends the notices.
	h.handle("GET", "/holdings/{holding_id}/registry-credentials", h.getRegistryCredentials)
	h.handle("PUT", "/holdings/{holding_id}/registry-credentials", h.putRegistryCredentials)
	h.handle("DELETE", "/holdings/{holding_id}/registry-credentials", h.deleteRegistryCredentials)
	// Statutory notices derived from the book, with their legal clocks, and their submissions.
	h.handle("GET", "/farm/{farm_id}/notices", h.noticesOf("farm_id", h.svc.FarmNotices))
	h.handle("POST", "/farm/{farm_id}/notices/{notice_key}/submissions", h.createNoticeSubmission)
	h.handle("GET", "/holdings/{holding_id}/notices", h.noticesOf("holding_id", h.svc.HoldingNotices))
	// The registry's copy of the holding compared with the register (reconciliation).
	h.handle("POST", "/farm/{farm_id}/reconciliation", h.asKnown(h.reconcileRegistryCopy, httpapi.WriteError))

	// Records.
	h.handle("GET", "/farm/{farm_id}/records", h.listRecords)
	h.handle("POST", "/farm/{farm_id}/records", h.createRecord)
	h.handle("GET", "/farm/{farm_id}/records/{record_id}", h.getRecord)
	h.handle("PUT", "/farm/{farm_id}/records/{record_id}", h.updateRecord)
	h.handle("DELETE", "/farm/{farm_id}/records/{record_id}", h.deleteRecord)
	// Corrections and the audit trail (docs/audit.md): nothing is erased.
	h.handle("POST", "/farm/{farm_id}/records/{record_id}/void", h.voidRecord)
	h.handle("POST", "/farm/{farm_id}/records/{record_id}/amend", h.amendRecord)
	h.handle("POST", "/farm/{farm_id}/records/{record_id}/items/{item_id}/void", h.voidRecordItem)
	h.handle("POST", "/farm/{farm_id}/records/{record_id}/items/{item_id}/amend", h.amendRecordItem)
	h.handle("GET", "/farm/{farm_id}/audit", h.listAudit)
	h.handle("GET", "/farm/{farm_id}/audit.csv", h.auditCSV)
	// CSV exports and imports (docs/csv.md): streamed, with stable columns.
	h.handle("GET", "/farm/{farm_id}/records.csv", h.exportRecords)
	h.handle("GET", "/farm/{farm_id}/animals.csv", h.exportAnimals)
	h.handle("POST", "/farm/{farm_id}/animals/import", h.importAnimals)
	h.handle("GET", "/farm/{farm_id}/breeding.csv", h.exportBreeding)
	h.handle("POST", "/farm/{farm_id}/breeding/import", h.importBreeding)
	h.handle("POST", "/farm/{farm_id}/weighings/import", h.importWeighings)
	// The lossless farm archive (docs/archive.md): a whole farm out, and into a new farm.
	h.handle("GET", "/farm/{farm_id}/archive", h.exportArchive)
	h.handle("POST", "/import", h.importArchive)

	// The herd register (docs/api.md#the-herd-register): animals with profiles as of a date.
	h.handle("GET", "/farm/{farm_id}/animals", h.asKnown(h.listAnimals, httpapi.WriteError))
	h.handle("POST", "/farm/{farm_id}/animals", h.createAnimal)
	h.handle("GET", "/farm/{farm_id}/animals/{animal_id}", h.asKnown(h.getAnimal, httpapi.WriteError))
	h.handle("PUT", "/farm/{farm_id}/animals/{animal_id}", h.updateAnimal)
	h.handle("DELETE", "/farm/{farm_id}/animals/{animal_id}", h.deleteAnimal)
	h.handle("GET", "/farm/{farm_id}/animals/{animal_id}/timeline", h.animalTimeline)
	// Pedigree, kinship and inbreeding under uncertain paternity (docs/pedigree.md).
	h.handle("GET", "/farm/{farm_id}/animals/{animal_id}/pedigree", h.animalPedigree)
	// The passport: what a GB cattle passport carries, as the book knows it (docs/registry.md).
	h.handle("GET", "/farm/{farm_id}/animals/{animal_id}/passport", h.animalPassport)
	h.handle("GET", "/farm/{farm_id}/animals/{animal_id}/passport.html", h.animalPassportHTML)
	// The calving operation and growth (docs/breeding.md).
	h.handle("GET", "/farm/{farm_id}/calvings", h.listCalvings)
	h.handle("POST", "/farm/{farm_id}/calvings", h.createCalving)
	h.handle("GET", "/farm/{farm_id}/calvings/{calving_id}", h.getCalving)
	h.handle("GET", "/farm/{farm_id}/animals/{animal_id}/weights", h.animalWeights)
	for _, name := range herdbook.Reports {
		h.handle("GET", "/farm/{farm_id}/reports/"+name, h.report(name))
		h.handle("GET", "/farm/{farm_id}/reports/"+name+".csv", h.reportCSV(name))
	}
	h.handle("GET", "/farm/{farm_id}/kinship", h.kinship)
	h.handle("GET", "/farm/{farm_id}/groups", h.listGroups)
	h.handle("POST", "/farm/{farm_id}/groups", h.createGroup)
	h.handle("GET", "/farm/{farm_id}/groups/{group_id}", h.asKnown(h.getGroup, httpapi.WriteError))
	h.handle("PUT", "/farm/{farm_id}/groups/{group_id}/animals", h.setGroupAnimals)
	// The medicine book (docs/medicines.md): the farm's medicine list, who is under
	// withdrawal, and the book an inspector reads.
	h.handle("GET", "/farm/{farm_id}/medicines", h.listMedicines)
	h.handle("POST", "/farm/{farm_id}/medicines", h.createMedicine)
	h.handle("GET", "/farm/{farm_id}/medicines/{medicine_id}", h.getMedicine)
	h.handle("PUT", "/farm/{farm_id}/medicines/{medicine_id}", h.updateMedicine)
	h.handle("DELETE", "/farm/{farm_id}/medicines/{medicine_id}", h.deleteMedicine)
	h.handle("GET", "/farm/{farm_id}/withdrawals", h.asKnown(h.listWithdrawals, httpapi.WriteError))
	h.handle("GET", "/farm/{farm_id}/treatment-conflicts", h.listReachConflicts)
	h.handle("GET", "/farm/{farm_id}/medicine-book.csv", h.asKnown(h.medicineBookCSV, httpapi.WriteError))
	h.handle("GET", "/farm/{farm_id}/medicine-book.html", h.asKnown(h.medicineBookHTML, httpapi.WriteError))
	// Purchases and stock (docs/medicines.md#purchases): acquisition records, never deleted,
	// and the balance per product and batch.
	h.handle("GET", "/farm/{farm_id}/medicine-purchases", h.listMedicinePurchases)
	h.handle("POST", "/farm/{farm_id}/medicine-purchases", h.createMedicinePurchase)
	h.handle("GET", "/farm/{farm_id}/medicine-purchases/{purchase_id}", h.getMedicinePurchase)
	h.handle("GET", "/farm/{farm_id}/medicine-stock", h.medicineStock)

	// Notifications (filled by the scheduler and delivery workers, docs/notifications.md).
	h.handle("GET", "/farm/{farm_id}/notifications", h.listNotifications)

	// Webhooks (docs/webhooks.md): a farm OWNER's endpoints, their deliveries, replays.
	h.handle("GET", "/farm/{farm_id}/webhooks", h.listWebhooks)
	h.handle("POST", "/farm/{farm_id}/webhooks", h.createWebhook)
	h.handle("GET", "/farm/{farm_id}/webhooks/{webhook_id}", h.getWebhook)
	h.handle("PUT", "/farm/{farm_id}/webhooks/{webhook_id}", h.updateWebhook)
	h.handle("DELETE", "/farm/{farm_id}/webhooks/{webhook_id}", h.deleteWebhook)
	h.handle("GET", "/farm/{farm_id}/webhooks/{webhook_id}/deliveries", h.listWebhookDeliveries)
	h.handle("POST", "/farm/{farm_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/replay", h.replayWebhookDelivery)

	// Files (DESIGN.md): upload, list, metadata, content, soft delete, record associations.
	h.handle("POST", "/file", h.uploadFiles)
	h.handle("GET", "/file", h.listFiles)
	h.handle("GET", "/file/{file_id}", h.getFile)
	h.handle("GET", "/file/{file_id}/content", h.fileContent)
	h.handle("DELETE", "/file/{file_id}", h.deleteFile)
	h.handle("POST", "/file/{file_id}/associations", h.attachFile)
	h.handle("DELETE", "/file/{file_id}/associations", h.detachFile)
}

// birthRoutes are the birth-history and farm-task operations.
func (h *Handler) birthRoutes() {
	// SPEC.md's birth-history operations answer 400, 401, 403 and 404 without a body.
	h.handleBodiless("GET", "/farm/{farm_id}/birth-history/settings", h.getBirthSettings)
	h.handleBodiless("PUT", "/farm/{farm_id}/birth-history/settings", h.putBirthSettings)
	h.handleBodiless("GET", "/farm/{farm_id}/birth-history/evidence", h.asKnown(h.getBirthEvidence, httpapi.WriteEmpty))
	h.handle("GET", "/farm/{farm_id}/birth-history/protocol", h.getProtocol)
	h.handle("PUT", "/farm/{farm_id}/birth-history/protocol", h.putProtocol)
	h.handle("POST", "/farm/{farm_id}/birth-history/previews", h.createPreview)
	h.handle("GET", "/farm/{farm_id}/birth-history/previews/{preview_id}", h.getPreview)
	h.handle("POST", "/farm/{farm_id}/birth-history/previews/{preview_id}/approve", h.approvePreview)

	// Outside sires and donors (docs/birth-history.md#outside-sires-and-donors).
	h.handle("GET", "/farm/{farm_id}/outside-animals", h.listOutsideAnimals)
	h.handle("POST", "/farm/{farm_id}/outside-animals", h.createOutsideAnimal)
	h.handle("GET", "/farm/{farm_id}/outside-animals/{outside_animal_id}", h.getOutsideAnimal)
	h.handle("PUT", "/farm/{farm_id}/outside-animals/{outside_animal_id}", h.updateOutsideAnimal)
	h.handle("DELETE", "/farm/{farm_id}/outside-animals/{outside_animal_id}", h.deleteOutsideAnimal)
	// The due list: pregnant females by expected calving date (docs/birth-history.md#the-due-list).
	h.handle("GET", "/farm/{farm_id}/due", h.listDue)
	h.handle("GET", "/farm/{farm_id}/due.csv", h.dueCSV)
	h.handle("GET", "/farm/{farm_id}/farm-tasks", h.listTasks)
	h.handle("PUT", "/farm/{farm_id}/farm-tasks/{task_id}", h.updateTask)
}
