"""Source of data/support/heldout2: the 100 answers and annotator A's labels, in one place.

This file CONTAINS ANNOTATOR A'S LABELS (each claim's supported flag, span and note). A second annotator
labelling blind must not read it; read answers.jsonl only.

    python3 data/support/heldout2/build.py            # rewrites answers.jsonl and labels_a.jsonl here
    python3 data/support/heldout2/build.py DIR        # writes answers.jsonl only, into DIR
    python3 data/support/heldout2/build.py DIR --labels

Each claim is (claim text, supported, span (doc_id, page, text copied from the page) or None, note). The
answer text is the claims joined, unless `answer=` is given (a lead-in such as "Yes." or a claim lightly cut).
"""
E, P, T, I, F, O, U, R = ("expense_policy", "product_manual", "travel_policy", "it_security", "faq_ja",
                          "onboarding_ja", "purchase_policy_ja", "terms_ja")
ROWS = []


def A(kind, lang, question, context, claims, answer=None):
    ROWS.append(dict(kind=kind, lang=lang, question=question, context=context, claims=claims, answer=answer))


# ---------------- verbatim (6 en, 4 ja)
A("verbatim", "en", "How many characters must a password have?", [(I, 2)], [
    ("Passwords must be at least 14 characters long.", True,
     (I, 2, "Passwords must be at least 14 characters long."), "page's words"),
    ("Never reuse your Kestrel Works password on another site.", True,
     (I, 2, "Never reuse your Kestrel Works password on another site."), "page's words")])
A("verbatim", "en", "What does error E6 mean on the Lumo X2?", [(P, 9)], [
    ("E6: firmware update failed; the thermostat retries automatically after one hour.", True,
     (P, 9, "E6: firmware update failed; the thermostat retries automatically after one hour."), "page's words")],
  answer="According to the manual, E6: firmware update failed; the thermostat retries automatically after one hour.")
A("verbatim", "en", "Can I use public Wi-Fi when working remotely?", [(I, 7)], [
    ("Public Wi-Fi may be used with the VPN on.", True, (I, 7, "Public Wi-Fi may be used with the VPN on."),
     "page's words"),
    ("Do not use public computers to access company systems.", True,
     (I, 7, "Do not use public computers to access company systems."), "page's words")])
A("verbatim", "en", "How long do I need to keep the paper receipt after submitting a claim?", [(E, 3)], [
    ("Keep the paper original for six months; the finance team may ask for it during an audit.", True,
     (E, 3, "Keep the paper original for six months; the finance team may ask for it during an audit."),
     "page's words")])
A("verbatim", "en", "Where should I install the Lumo X2 thermostat?", [(P, 3), (P, 1)], [
    ("Mount the thermostat on an inside wall about 1.5 metres above the floor, away from direct sunlight and "
     "draughts.", True, (P, 3, "Mount the thermostat on an inside wall about 1.5 metres above the floor, away from "
                           "direct sunlight and draughts."), "page's words"),
    ("Do not install the thermostat in a bathroom or near a heat source such as a radiator or an oven.", True,
     (P, 1, "Do not install the thermostat in a bathroom or near a heat source such as a radiator or an oven."),
     "page's words, second context page")])
A("verbatim", "en", "Who approves a business trip?", [(T, 8)], [
    ("The line manager approves every trip.", True, (T, 8, "The line manager approves every trip."),
     "page's words"),
    ("Trips outside the employee's home country also need the department head.", True,
     (T, 8, "Trips outside the employee's home country also need the department head."), "page's words")])
A("verbatim", "ja", "会議室は何週間先まで予約できますか。", [(F, 1)], [
    ("会議室はカレンダーから予約します。", True, (F, 1, "会議室はカレンダーから予約します。"), "page's words"),
    ("予約は最長で４週間先まで可能です。", True, (F, 1, "予約は最長で４週間先まで可能です。"), "page's words")])
A("verbatim", "ja", "結婚休暇は何日もらえますか。", [(O, 8)], [
    ("結婚休暇として５日、忌引休暇として最大５日が与えられます。", True,
     (O, 8, "結婚休暇として５日、忌引休暇として最大５日が与えられます。"), "page's words"),
    ("いずれも有給です。", True, (O, 8, "いずれも有給です。"), "page's words; 'both' refers to the previous sentence")])
A("verbatim", "ja", "有料プランの料金はどのように支払いますか。", [(R, 4)], [
    ("有料プランの料金は、クレジットカードにより毎月１日に前払いで請求します。", True,
     (R, 4, "有料プランの料金は、クレジットカードにより毎月１日に前払いで請求します。"), "page's words")])
A("verbatim", "ja", "新しい取引先を登録するときに必要な書類は何ですか。", [(U, 8)], [
    ("新たな取引先と取引を開始する場合は、購買課に取引先登録を申請します。", True,
     (U, 8, "新たな取引先と取引を開始する場合は、購買課に取引先登録を申請する。"), "page's words, polite ending"),
    ("登録には登記事項証明書と反社会的勢力でないことの確認書が必要です。", True,
     (U, 8, "登録には登記事項証明書と反社会的勢力でないことの確認書が必要である。"), "page's words, polite ending")])

# ---------------- paraphrase (5 en, 5 ja)
A("paraphrase", "en", "When are approved expense claims paid out?", [(E, 9)], [
    ("Once a claim has been approved, the money arrives with the following month's payroll, on the 5th.", True,
     (E, 9, "Approved claims are paid with the payroll run on the 5th day of the month following approval."),
     "reworded"),
    ("If the 5th falls on a bank holiday, you are paid one working day earlier.", True,
     (E, 9, "When the 5th is a bank holiday, payment is made on the previous working day."),
     "one working day earlier = previous working day")])
A("paraphrase", "en", "How far in advance do I need to submit a travel request?", [(T, 2)], [
    ("You should file your request in Wayfarer no later than two weeks ahead of your departure date.", True,
     (T, 2, "Submit a travel request in the Wayfarer portal at least 14 days before departure."),
     "two weeks = 14 days"),
    ("If you ask with less notice, you need to give a brief reason and a department head must sign off.", True,
     (T, 2, "A request submitted less than 14 days ahead needs a short justification and the approval of a "
            "department head."), "reworded, clauses reordered")])
A("paraphrase", "en", "How many days of paid leave do new employees get?", [(O, 7)], [
    ("New employees are granted ten days of annual paid leave once they have been with the company for half a "
     "year.", True, (O, 7, "年次有給休暇は、入社から6か月後に10日付与されます。"),
     "cross-language; half a year = 6か月"),
    ("The number of days then grows with the length of service.", True,
     (O, 7, "その後は勤続年数に応じて日数が増えます。"), "cross-language")])
A("paraphrase", "en", "How long is the warranty on the Lumo X2?", [(P, 11)], [
    ("24 months, counted from the day you bought it.", True,
     (P, 11, "The Lumo X2 has a warranty of two years from the date of purchase."),
     "short answer, subject from the question; 24 months = two years"),
    ("Damage that results from wiring the device incorrectly is excluded from the warranty.", True,
     (P, 11, "The warranty does not cover damage caused by incorrect wiring."), "reworded")])
A("paraphrase", "en", "What happens if I don't finish pairing the thermostat with the app in time?", [(P, 6)], [
    ("You have ten minutes to finish pairing.", True,
     (P, 6, "Pairing must be completed within ten minutes; after that, restart pairing from the settings menu."),
     "reworded"),
    ("Once that window has passed, you need to start the pairing again from the settings menu.", True,
     (P, 6, "Pairing must be completed within ten minutes; after that, restart pairing from the settings menu."),
     "reworded")])
A("paraphrase", "ja", "自家用車を業務で使った場合、いくら精算されますか。", [(E, 7)], [
    ("業務で自家用車を使用した場合は、１キロメートルあたり０．３０ユーロが支払われます。", True,
     (E, 7, "Business use of a private car is reimbursed at 0.30 EUR per kilometre."), "cross-language"),
    ("駐車場代や高速料金は、領収書があれば実費で精算できます。", True,
     (E, 7, "Parking and tolls are reimbursed at cost with receipts."), "cross-language; tolls = 高速料金")])
A("paraphrase", "ja", "病気で会社を休むときはどうすればよいですか。", [(F, 7)], [
    ("始業前に上司へ連絡を入れてください。", True, (F, 7, "始業時刻までに上司に連絡してください。"),
     "始業前 = 始業時刻まで"),
    ("休みが５日以上になる場合には、医師の診断書を提出する必要があります。", True,
     (F, 7, "５日以上休む場合は診断書が必要です。"), "reworded")])
A("paraphrase", "ja", "運転履歴はどのくらいの期間保存されますか。", [(R, 6)], [
    ("２年間保存され、その後は削除されます。", True, (R, 6, "運転履歴は２４か月間保存し、その後削除します。"),
     "short answer, subject from the question; ２年間 = ２４か月")])
A("paraphrase", "ja", "緊急で物品を購入した場合の手続きを教えてください。", [(U, 6)], [
    ("業務上やむを得ない緊急の購入であれば、承認は後から受けることができます。", True,
     (U, 6, "業務上やむを得ない緊急の購入は、事後承認とすることができる。"), "事後承認 reworded"),
    ("その場合は、購入してから３営業日以内に申請してください。", True,
     (U, 6, "この場合、発注者は購入後３営業日以内に申請を行う。"), "reworded")])
A("paraphrase", "ja", "在宅勤務用の椅子や机の費用は請求できますか。", [(E, 7)], [
    ("週に２日以上在宅で働いている従業員であれば、椅子・机・モニターの購入費として、３年に１度、３００ユーロを上限に"
     "請求できます。", True,
     (E, 7, "Employees who work from home at least two days a week may claim up to 300 EUR once every three years "
            "for a chair, a desk or a monitor."), "cross-language")],
  answer="はい、請求できます。週に２日以上在宅で働いている従業員であれば、椅子・机・モニターの購入費として、"
         "３年に１度、３００ユーロを上限に請求できます。")
# ---------------- numeric_mismatch (6 en, 4 ja)
A("numeric_mismatch", "en", "What is the daily meal allowance on a business trip?", [(E, 6)], [
    ("The daily meal allowance while travelling is 40 EUR.", False, None, "page says 45 EUR"),
    ("The allowance is paid without receipts.", True,
     (E, 6, "When travelling, meals are covered by a daily meal allowance of 45 EUR, paid without receipts."),
     "control claim")])
A("numeric_mismatch", "en", "How quickly do approvers have to act on an expense claim?", [(E, 5)], [
    ("Approvers are expected to act on a claim within five working days.", True,
     (E, 5, "Approvers should act on a claim within five working days."), "control claim"),
    ("The system sends them a reminder after two working days and escalates to their own manager after ten.", False,
     None, "page says the reminder comes after three working days")])
A("numeric_mismatch", "en", "How long does a firmware update take on the Lumo X2?", [(P, 10)], [
    ("A firmware update takes roughly fifteen minutes.", False, None, "page says about five minutes"),
    ("During the update the status light is amber.", True,
     (P, 10, "The status light is amber during an update, which takes about five minutes."), "control claim")],
  answer="A firmware update takes roughly fifteen minutes. During the update the status light is amber.")
A("numeric_mismatch", "en", "What temperature range does the Lumo X2 support?", [(P, 12)], [
    ("Between 5 and 32 degrees Fahrenheit.", False, None,
     "short answer, subject from the question; page says degrees Celsius")])
A("numeric_mismatch", "en", "When was the expense policy last revised?", [(E, 12)], [
    ("The expense policy was last revised in April 2025.", False, None, "page says April 2026"),
    ("The earlier version allowed 90 days for submitting a claim.", False, None, "page says 60 days")])
A("numeric_mismatch", "en", "How quickly must I hand in paper originals when my claim is audited?", [(E, 11)], [
    ("Claimants must provide the paper originals within five working days of a request.", False, None,
     "page says ten working days"),
    ("The finance team audits a random sample of claims four times a year.", True,
     (E, 11, "The finance team audits a random sample of claims every quarter."),
     "control claim; four times a year = every quarter")])
A("numeric_mismatch", "ja", "Lumoクラウドの有料プランの月額料金はいくらですか。", [(R, 3)], [
    ("有料プランの月額料金は４，８００円（税込）です。", False, None, "page says ４８０円"),
    ("基本機能は無料でご利用いただけます。", True, (R, 3, "本サービスの基本機能は無料です。"), "control claim")],
  answer="有料プランの月額料金は４，８００円（税込）です。なお、基本機能は無料でご利用いただけます。")
A("numeric_mismatch", "ja", "相見積もりが必要になるのは、いくら以上の購入ですか。", [(U, 3)], [
    ("１件あたり１００万円以上の購入で必要になり、原則として３社以上から見積もりを取ります。", False, None,
     "short answer; page says ５０万円以上")])
A("numeric_mismatch", "ja", "入社初日は何時に受付へ行けばよいですか。", [(O, 2)], [
    ("初日は午前１０時３０分に本社１階の受付へお越しください。", False, None, "page says 午前９時３０分"),
    ("入館証は人事部の担当者から受け取ります。", True, (O, 2, "人事部の担当者が入館証をお渡しします。"),
     "control claim, reworded")])
A("numeric_mismatch", "ja", "首都に出張する場合、ホテル代の上限はいくらですか。", [(T, 7)], [
    ("首都では１泊あたり２５０ユーロが上限です。", False, None, "cross-language; page says 200 EUR"),
    ("上限を超える料金の場合は、予約の前に部門長の承認が必要です。", True,
     (T, 7, "Rates above the cap need the approval of a department head before booking."),
     "cross-language control claim; department head = 部門長")])

# ---------------- negation_flip (5 en, 5 ja)
A("negation_flip", "en", "Do I have to change my password every few months?", [(I, 2)], [
    ("Yes, passwords expire on a regular schedule.", False, None, "page: passwords do not expire on a schedule"),
    ("You should also change your password immediately if you suspect that someone else knows it.", True,
     (I, 2, "Change your password immediately if you suspect that someone else knows it, and after any phishing "
            "incident."), "control claim")])
A("negation_flip", "en", "Is paid seat selection reimbursed on long flights?", [(T, 5)], [
    ("Paid seat selection is not reimbursed on flights longer than four hours.", False, None,
     "page: reimbursed only on flights longer than four hours")])
A("negation_flip", "en", "Does the travel insurance cover a private holiday added to a business trip?", [(T, 3)], [
    ("Yes, private extensions of a business trip are covered by the company's travel insurance as well.", False,
     None, "page: private extensions are not covered")])
A("negation_flip", "en", "Will the company pay for a hotel I booked outside Wayfarer?", [(T, 2)], [
    ("The company pays for a booking made elsewhere only if Wayfarer could not offer the same trip.", True,
     (T, 2, "Bookings made elsewhere are not paid by the company, unless Wayfarer could not offer the same trip."),
     "supported: 'not ... unless' restated as 'only if'"),
    ("Hotels do not have to be booked through Wayfarer.", False, None,
     "page: all flights, trains and hotels are booked through Wayfarer")],
  answer="The company pays for a booking made elsewhere only if Wayfarer could not offer the same trip. Hotels do "
         "not have to be booked through Wayfarer.")
A("negation_flip", "en", "Do my heating schedules keep working if the internet goes down?", [(P, 7)], [
    ("No, schedules stop working without internet access.", False, None,
     "page: schedules keep working without internet access"),
    ("Schedules are not stored on the thermostat.", False, None, "page: stored on the thermostat")],
  answer="No, schedules stop working without internet access. Schedules are not stored on the thermostat.")
A("negation_flip", "ja", "取引先との会食のお酒代は精算できますか。", [(F, 3)], [
    ("取引先との会食であれば、お酒の代金も会社負担になります。", False, None,
     "page: 取引先との会食でも会社負担になりません")])
A("negation_flip", "ja", "支払済みの利用料金は返金してもらえますか。", [(R, 4)], [
    ("法令に定める場合を除き、支払済みの料金は返金されません。", True,
     (R, 4, "支払済みの料金は、法令に定める場合を除き返金しません。"),
     "supported: the negation is the page's own, clauses reordered")])
A("negation_flip", "ja", "発注者が自分で取引先に発注してもよいですか。", [(U, 4)], [
    ("はい、発注者が取引先に直接発注することも認められています。", False, None, "page: 直接発注することは認めない")])
A("negation_flip", "ja", "在宅勤務中にVPNへの接続は必要ですか。", [(O, 4)], [
    ("在宅勤務中にVPNへ接続する必要はありません。", False, None, "page: 必ずVPNに接続してください"),
    ("在宅勤務は、入社後１か月を過ぎれば、上司の了承を得たうえで週２日までできます。", True,
     (O, 4, "入社後１か月を過ぎると、上司の了承を得て週２日まで在宅勤務ができます。"), "control claim")],
  answer="在宅勤務中にVPNへ接続する必要はありません。なお、在宅勤務は、入社後１か月を過ぎれば、上司の了承を得たうえで週２日までできます。")
A("negation_flip", "ja", "Lumo X2は5GHzのWi-Fiにつながりますか。", [(P, 5)], [
    ("Lumo X2は５GHzのネットワークには対応していません。", True,
     (P, 5, "5 GHz networks are not supported."), "cross-language; negation kept"),
    ("Lumo X2は２．４GHzのWi-Fiにのみ接続できます。", True,
     (P, 5, "The Lumo X2 connects to 2.4 GHz Wi-Fi networks only."), "cross-language")],
  answer="いいえ、つながりません。Lumo X2は５GHzのネットワークには対応しておらず、２．４GHzのWi-Fiにのみ接続できます。")

# ---------------- partial (6 en, 4 ja)
A("partial", "en", "How do I report a phishing email?", [(I, 4)], [
    ("Use the Report button in the mail client within one hour of receiving the message.", True,
     (I, 4, "Report a suspicious email with the Report button in the mail client within one hour of receiving it."),
     "reworded"),
    ("The security team will reply within 24 hours to confirm whether it was phishing.", False, None,
     "added: no reply time on the page")])
A("partial", "en", "What does the travel desk do when there is a security incident at my destination?", [(T, 10)], [
    ("The travel desk tracks all trips booked in Wayfarer and contacts travellers when there is a security incident "
     "at the destination.", True,
     (T, 10, "The travel desk tracks all trips booked in Wayfarer and contacts travellers when there is a security "
             "incident at the destination."), "page's words"),
    ("It will also arrange an earlier flight home at no cost to you.", False, None, "added detail")])
A("partial", "en", "How do I reset the thermostat to factory settings?", [(P, 9)], [
    ("Press and hold the ring for about ten seconds until the status light blinks red, then confirm on the display.",
     True, (P, 9, "To restore factory settings, press and hold the ring for 10 seconds until the status light blinks "
                  "red, then confirm on the display."), "reworded"),
    ("Your Wi-Fi settings are kept after the reset.", False, None, "added: page does not say so"),
    ("All schedules are deleted.", True, (P, 9, "All schedules are deleted."), "page's words")],
  answer="Press and hold the ring for about ten seconds until the status light blinks red, then confirm on the "
         "display. Your Wi-Fi settings are kept after the reset, but all schedules are deleted.")
A("partial", "en", "Can interns travel on business?", [(T, 1)], [
    ("Interns may travel only together with their supervisor.", True,
     (T, 1, "Interns may travel only together with their supervisor."), "page's words"),
    ("Interns may travel only within their home country.", False, None, "added condition")],
  answer="Yes, but interns may travel only together with their supervisor, and only within their home country.")
A("partial", "en", "Is a receipt needed for a 15 EUR taxi ride?", [(E, 4)], [
    ("Expenses below 25 EUR normally need only a short description.", True,
     (E, 4, "Below 25 EUR a short description is enough, except for taxis and hotel stays, which always need a "
            "receipt whatever the amount."), "reworded"),
    ("Taxis always require a receipt, whatever the amount.", True,
     (E, 4, "Below 25 EUR a short description is enough, except for taxis and hotel stays, which always need a "
            "receipt whatever the amount."), "reworded"),
    ("The taxi receipt must be handed in as a paper original.", False, None, "added detail; not on the page")],
  answer="Yes. Although expenses below 25 EUR normally need only a short description, taxis always require a "
         "receipt, whatever the amount. The taxi receipt must be handed in as a paper original.")
A("partial", "en", "How many times can I use form EX-7?", [(E, 4)], [
    ("Form EX-7 can be used at most three times per calendar year.", True,
     (E, 4, "A claimant may use form EX-7 at most three times per calendar year."), "page's words"),
    ("After the third use, your manager can approve further exceptions.", False, None,
     "added; page says further missing receipts are not reimbursed")])
A("partial", "ja", "有給休暇は入社後いつ何日もらえますか。", [(F, 7)], [
    ("入社から６か月後に１０日付与されます。", True, (F, 7, "Q13 有給休暇は何日ありますか 入社から６か月後に１０日付与されます。"),
     "short answer, page's words"),
    ("有効期限は付与から２年間です。", False, None, "added: no expiry on the page")])
A("partial", "ja", "メンター制度について教えてください。", [(O, 9)], [
    ("新入社員には一人ずつメンターがつき、月に１回、３０分の面談を行います。", True,
     (O, 9, "メンターとは月に１回、３０分の面談を行います。"), "two page sentences joined; both on the page"),
    ("メンターは同じ部署の先輩社員から選ばれます。", False, None, "added detail")])
A("partial", "ja", "規約が変更されるときはどのように知らされますか。", [(R, 2)], [
    ("重要な変更を行う場合は、効力発生日の３０日前までに利用者に通知されます。", True,
     (R, 2, "重要な変更を行う場合は、効力発生日の３０日前までに利用者に通知します。"), "page's words, passive"),
    ("通知は登録されたメールアドレス宛てに送られます。", False, None, "added: channel not on the page")])
A("partial", "ja", "納品された物品の検収はどうすればよいですか。", [(U, 6)], [
    ("発注者が５営業日以内に内容を確認し、購買システムで検収を登録してください。", True,
     (U, 6, "納品された物品は、発注者が５営業日以内に内容を確認し、購買システムで検収を登録する。"), "page's words"),
    ("検収が遅れた場合は、購買課から督促のメールが届きます。", False, None, "added detail")])
# ---------------- hallucinated_detail (5 en, 5 ja)
A("hallucinated_detail", "en", "How much does the Lumo power adapter cost?", [(P, 4)], [
    ("The Lumo power adapter is sold separately for 29 EUR.", False, None, "invented price; page gives none"),
    ("You need the adapter if your heating system has no C wire.", True,
     (P, 4, "If your system has no C wire, use the Lumo power adapter, sold separately."), "reworded")])
A("hallucinated_detail", "en", "Who do I contact with questions about the expense policy?", [(E, 12)], [
    ("Questions about the policy go to the finance helpdesk, at expenses@kestrel.example or extension 2100.", True,
     (E, 12, "Questions about this policy go to the finance helpdesk, expenses@kestrel.example, or extension 2100."),
     "page's words"),
    ("The helpdesk is staffed from 9:00 to 17:00 on working days.", False, None, "invented opening hours")])
A("hallucinated_detail", "en", "What should I do when the thermostat shows error E3?", [(P, 8)], [
    ("E3 means the Wi-Fi connection has been lost, so check your router.", True,
     (P, 8, "E3: Wi-Fi connection lost; check the router."), "reworded"),
    ("If the connection is not restored within 15 minutes, the thermostat switches to offline mode.", False, None,
     "invented time and mode")])
A("hallucinated_detail", "en", "Where do I get the travel insurance card for a trip?", [(T, 3)], [
    ("You can download the insurance card from Wayfarer.", True,
     (T, 3, "The insurance card is downloaded from Wayfarer."), "voice changed"),
    ("Maria Keller at the travel desk can also email it to you.", False, None, "invented staff name")])
A("hallucinated_detail", "en", "How should I dispose of an old Lumo X2?", [(P, 12)], [
    ("The thermostat must not be thrown away with household waste.", True,
     (P, 12, "Do not dispose of the thermostat with household waste."), "reworded"),
    ("Take out the coin batteries and bring the device to an electronics collection point.", True,
     (P, 12, "Remove the coin batteries and take the device to an electronics collection point."), "reworded"),
    ("Lumo pays a 10 EUR recycling bonus at the collection point.", False, None, "invented bonus")])
A("hallucinated_detail", "ja", "社内報はどこで読めますか。", [(F, 9)], [
    ("社内報は社内ポータルのお知らせ欄で、毎月１日の午前１０時に公開されます。", False, None,
     "invented time of day (午前１０時); the rest is on the page")])
A("hallucinated_detail", "ja", "新入社員研修はどのくらいの期間ですか。", [(O, 8)], [
    ("入社後の最初の２週間は新入社員研修があります。", True, (O, 8, "入社後の最初の２週間は新入社員研修があります。"),
     "page's words"),
    ("研修は本社の７階で行われます。", False, None, "invented place")])
A("hallucinated_detail", "ja", "本社の駐車場は使えますか。", [(F, 2)], [
    ("本社の駐車場は来客と障がいのある従業員の専用です。", True, (F, 2, "本社の駐車場は来客と障がいのある従業員の専用です。"),
     "page's words"),
    ("ただし、月額５，０００円で近隣の提携駐車場を利用できます。", False, None, "invented offer and price")])
A("hallucinated_detail", "ja", "クラウドサービスを契約するには何が必要ですか。", [(U, 9)], [
    ("情報システム部によるセキュリティ審査が必要です。", True,
     (U, 9, "クラウドサービスの契約には、情報システム部によるセキュリティ審査が必要である。"),
     "short answer, subject from the question"),
    ("審査にはおよそ二十日かかります。", False, None, "invented duration")])
A("hallucinated_detail", "ja", "会社のパソコンでUSBメモリを使う例外は認められますか。", [(I, 6)], [
    ("実験機器については、セキュリティチームが期間を限って例外を認めています。", True,
     (I, 6, "Exceptions for lab equipment are granted by the security team for a limited period."),
     "cross-language; lab equipment = 実験機器"),
    ("例外の申請には、部門長の署名が入った申請書が必要です。", False, None, "invented form and signature")])

# ---------------- distractor (6 en, 4 ja)
A("distractor", "en", "What are the hotel caps per night?", [(T, 7), (T, 8)], [
    ("The standard hotel cap is 30 EUR per night.", False, None,
     "30 EUR is the friends-and-family allowance on the distractor page; cap is 150 EUR"),
    ("In capital cities the cap is 200 EUR per night.", True,
     (T, 7, "In capital cities the cap is 200 EUR per night."), "page's words")])
A("distractor", "en", "For how long are SMS codes accepted instead of the authenticator app?", [(I, 3), (I, 8)], [
    ("For two weeks, and only as a temporary fallback.", False, None,
     "short answer; page says seven days, two weeks is the working-abroad rule on the distractor page")])
A("distractor", "en", "What does a red status light mean on the Lumo X2?", [(P, 2), (P, 9)], [
    ("A red status light means an error.", True,
     (P, 2, "Green means normal operation, amber means an update is being installed, and red means an error."),
     "reworded"),
    ("To restore factory settings, you hold the ring for 10 seconds until the light blinks red and then confirm on "
     "the display.", True,
     (P, 9, "To restore factory settings, press and hold the ring for 10 seconds until the status light blinks red, "
            "then confirm on the display."), "fact from the distractor page, reported faithfully")])
A("distractor", "en", "How much time should I allow to get a visa?", [(T, 3), (T, 2)], [
    ("Allow at least 14 days for a visa.", False, None,
     "page says four weeks; 14 days is the travel-request rule on the distractor page"),
    ("The company pays the visa fees.", True,
     (T, 3, "The company pays visa fees and the vaccinations recommended for the destination."), "reworded")])
A("distractor", "en", "Who has to approve an expense claim of 2,500 EUR?", [(E, 5), (E, 10)], [
    ("A claim of 2,500 EUR needs the approval of the finance director.", False, None,
     "page 5 says 'a director'; the finance director is the exceptions rule on the distractor page"),
    ("An approver may never approve their own claim.", True,
     (E, 5, "An approver may never approve their own claim."), "page's words")])
A("distractor", "en", "How long does the thermostat wait before retrying a failed firmware update?",
  [(P, 9), (P, 10)], [
    ("After a failed firmware update (E6), the thermostat retries automatically after about five minutes.", False,
     None, "page says one hour; five minutes is the update duration on the distractor page")])
A("distractor", "ja", "給与は毎月何日に支払われますか。", [(O, 5), (O, 6)], [
    ("給与は毎月５日に支払われます。", False, None, "page 6 says 25日; 5日 is the expense payment on the distractor page")])
A("distractor", "ja", "休暇を３日以上続けて取る場合は、どのように申請すればよいですか。", [(O, 7), (O, 6)], [
    ("休暇はWayfarerで申請し、上司の承認を受けます。", False, None,
     "page says 勤怠システム; Wayfarer is the travel tool on the distractor page"),
    ("３日以上続けて休む場合は、２週間前までに申請が必要です。", True,
     (O, 7, "３日以上続けて休む場合は、２週間前までに申請してください。"), "page's words")])
A("distractor", "ja", "Lumo X2のエラーE4はどういう意味ですか。", [(F, 9), (F, 8)], [
    ("E4は電源が不安定なときに表示されるエラーです。", True, (F, 9, "Q17 E4というエラーが表示されます 電源が不安定なときに表示されます。"),
     "subject from the page's question Q17"),
    ("なお、Lumo X2の保証期間は購入日から２年間です。", True, (F, 8, "Q16 Lumo X2の保証期間は 購入日から２年間です。"),
     "fact from the distractor page, reported faithfully (subject from its question Q16)")])
A("distractor", "ja", "結婚休暇は何日もらえますか。", [(O, 8), (F, 7)], [
    ("結婚休暇は１０日与えられます。", False, None, "page says ５日; １０日 is paid leave on the distractor page")])
# ---------------- non_gold_support (5 en, 5 ja)
A("non_gold_support", "en", "What is the minimum length of a password?", [(F, 5)], [
    ("Passwords need to be at least 14 characters long.", True,
     (F, 5, "Q10 パスワードは何文字以上ですか １４文字以上です。"), "cross-language; FAQ instead of the IT guide")])
A("non_gold_support", "en", "When are approved expense claims paid out?", [(O, 5)], [
    ("Approved expenses are paid together with the salary on the 5th of the month after approval.", True,
     (O, 5, "精算されたお金は、承認された月の翌月5日の給与と一緒に振り込まれます。"),
     "cross-language; onboarding guide instead of the expense policy")])
A("non_gold_support", "en", "What does error E4 mean on the thermostat?", [(P, 4), (P, 12)], [
    ("Error E4 appears when there is no C wire, and the thermostat keeps restarting.", True,
     (P, 4, "Without a C wire the thermostat restarts repeatedly and shows error E4."),
     "installation page instead of the error-code page"),
    ("If your system has no C wire, you can use the Lumo power adapter, which is sold separately.", True,
     (P, 4, "If your system has no C wire, use the Lumo power adapter, sold separately."), "reworded")])
A("non_gold_support", "en", "Can I claim a laptop for my home office?", [(U, 9)], [
    ("Computers, peripherals and software are purchased centrally by the IT department.", True,
     (U, 9, "パソコン、周辺機器、ソフトウェアは情報システム部が一括して購入する。"),
     "cross-language; purchase policy instead of the expense policy"),
    ("Individual departments must not buy them themselves.", True, (U, 9, "各部門が個別に購入してはならない。"),
     "cross-language")],
  answer="According to the purchasing rules, computers, peripherals and software are purchased centrally by the "
         "IT department, "
         "and individual departments must not buy them themselves.")
A("non_gold_support", "en", "What should I do if my laptop is lost?", [(O, 10), (I, 10)], [
    ("Call the security hotline on extension 4444 straight away.", True,
     (O, 10, "不審なメールを受け取ったときや、パソコンをなくしたときは、すぐにセキュリティホットライン（内線４４４４）に電話してください。"),
     "cross-language; onboarding guide and incident page instead of the devices page"),
    ("The hotline is available around the clock.", True,
     (I, 10, "Call the security hotline at extension 4444, available 24 hours a day, or write to "
             "security@kestrel.example."), "around the clock = 24 hours a day")])
A("non_gold_support", "ja", "出張の申請はいつまでにすればよいですか。", [(O, 6)], [
    ("出発の１４日前までに、Wayfarerで申請してください。", True,
     (O, 6, "出張するときは、出発の2週間前までにWayfarerで申請します。"),
     "short answer; onboarding guide instead of the travel policy; １４日 = 2週間")])
A("non_gold_support", "ja", "Lumo X2の保証期間はどのくらいですか。", [(F, 8)], [
    ("ご購入日から２４か月間保証されます。", True, (F, 8, "Q16 Lumo X2の保証期間は 購入日から２年間です。"),
     "short answer; FAQ instead of the manual; ２４か月 = ２年")])
A("non_gold_support", "ja", "経費の申請期限はいつまでですか。", [(F, 3), (O, 5)], [
    ("使った日から３０日以内に、経費システムで申請する必要があります。", True,
     (O, 5, "仕事で立て替えたお金は、使った日から30日以内に経費システムで申請します。"),
     "short answer; onboarding guide instead of the expense policy")])
A("non_gold_support", "ja", "フィッシングメールのリンクを開いてしまった場合はどうすればよいですか。", [(O, 10)], [
    ("すぐにセキュリティホットライン（内線４４４４）へ電話してください。", True,
     (O, 10, "不審なメールを受け取ったときや、パソコンをなくしたときは、すぐにセキュリティホットライン（内線４４４４）に電話してください。"),
     "onboarding guide instead of the IT guide"),
    ("ホットラインは夜間や休日でも対応しています。", True, (O, 10, "夜間や休日でも対応しています。"), "page's words")])
A("non_gold_support", "ja", "出張のホテル代の上限はいくらですか。", [(F, 4)], [
    ("通常は１泊１５０ユーロまでです。", True, (F, 4, "Q8 ホテル代の上限はいくらですか １泊１５０ユーロまでです。"), "FAQ instead of the travel policy"),
    ("首都の場合は１泊２００ユーロまでとなっています。", True, (F, 4, "首都の場合は２００ユーロまでです。"), "FAQ")],
  answer="通常は１泊１５０ユーロまでです。首都の場合は１泊２００ユーロまでとなっています。")

# ---------------- refusal (6 en, 4 ja): supported iff no context page states the fact
A("refusal", "en", "What is the reimbursement limit for dental treatment?", [(E, 8)], [
    ("The provided documents do not mention any reimbursement limit for dental treatment.", True, None,
     "no context page mentions dental treatment")])
A("refusal", "en", "How many weeks of parental leave do employees get?", [(O, 8)], [
    ("I'm sorry, but the context does not say how many weeks of parental leave employees receive.", True, None,
     "cross-language; page lists marriage and bereavement leave only")])
A("refusal", "en", "How often is the carbon footprint of business travel published?", [(T, 11)], [
    ("The documents do not specify how often the carbon footprint of business travel is reported.", False, None,
     "page: published every quarter, by department")])
A("refusal", "en", "Can contractors claim expenses under the expense policy?", [(E, 1)], [
    ("The policy does not say whether contractors are covered by it.", False, None,
     "page: contractors are not covered here")])
A("refusal", "en", "Are my heating schedules kept after a firmware update?", [(P, 10), (P, 9)], [
    ("The manual does not say whether schedules are kept after a firmware update.", True, None,
     "neither context page says; p.9 only says a factory reset deletes schedules")])
A("refusal", "en", "How long do I have to submit an expense claim?", [(T, 1)], [
    ("Unfortunately, the provided context does not state a deadline for submitting expense claims.", True, None,
     "the relevant page (expense_policy p.3) is missing from the context")])
A("refusal", "ja", "社員食堂は何時まで営業していますか。", [(O, 3)], [
    ("申し訳ありませんが、資料には社員食堂の営業時間についての記載がありません。", True, None,
     "no context page mentions a cafeteria")])
A("refusal", "ja", "株主総会はいつ開催されますか。", [(U, 10)], [
    ("提供された資料には、株主総会の開催時期は記載されていません。", True, None,
     "page mentions 取締役会 only")])
A("refusal", "ja", "有料プランを解約するには、いつまでに通知する必要がありますか。", [(R, 7)], [
    ("資料には、解約の通知期限についての記載は見当たりません。", False, None, "page: 解約希望日の３０日前まで")])
A("refusal", "ja", "サービスに関する紛争の管轄裁判所はどこですか。", [(R, 9)], [
    ("ご質問の管轄裁判所については、参照した資料には書かれていないようです。", False, None, "page: 東京地方裁判所")])

# ---------------- supported_but_wrong (5 en, 5 ja)
A("supported_but_wrong", "en", "What is the minimum password length for my Lumo cloud account?", [(I, 2)], [
    ("Passwords must be at least 14 characters long.", True, (I, 2, "Passwords must be at least 14 characters long."),
     "faithful to the company IT guide, which is about the Kestrel Works account, not the Lumo cloud account"),
    ("A passphrase of four or more unrelated words is easier to remember and harder to guess than a short complex "
     "password.", True,
     (I, 2, "A passphrase of four or more unrelated words is easier to remember and harder to guess than a short "
            "complex password."), "page's words")])
A("supported_but_wrong", "en", "How much can I spend on a hotel in Tokyo?", [(T, 8)], [
    ("If you stay with friends or family instead of a hotel, you receive a flat allowance of 30 EUR per night.", True,
     (T, 8, "An employee who stays with friends or family instead of a hotel receives a flat allowance of 30 EUR per "
            "night."), "faithful to the wrong rule (the question asks for the hotel cap)"),
    ("No receipt is needed for this allowance.", True, (T, 8, "No receipt is required."), "reworded")])
A("supported_but_wrong", "en", "How long is the Lumo X2 warranty?", [(R, 6)], [
    ("Operating history is stored for 24 months and then deleted.", True,
     (R, 6, "運転履歴は２４か月間保存し、その後削除します。"),
     "cross-language; faithful to the data-retention article, not the warranty")],
  answer="The documents mention a 24-month period: operating history is stored for 24 months and then deleted.")
A("supported_but_wrong", "en", "How soon must I report a lost phone?", [(I, 4)], [
    ("Suspicious emails are reported with the Report button in the mail client within one hour of receiving them.",
     True, (I, 4, "Report a suspicious email with the Report button in the mail client within one hour of receiving "
                  "it."), "faithful to the phishing rule, not the lost-device rule")],
  answer="The guide I have describes the reporting rule for emails: suspicious emails are reported with the "
         "Report button in the mail "
         "client within one hour of receiving them.")
A("supported_but_wrong", "en", "How many days of paid leave do I get after one year of service?", [(F, 7)], [
    ("Ten days of paid leave are granted six months after joining.", True,
     (F, 7, "Q13 有給休暇は何日ありますか 入社から６か月後に１０日付与されます。"), "cross-language; the page gives the first grant only")])
A("supported_but_wrong", "ja", "有料プランを解約するには、いつまでに通知する必要がありますか。", [(R, 2)], [
    ("重要な規約変更を行う場合、当社は効力発生日の三十日前までに利用者へ通知します。", True,
     (R, 2, "重要な変更を行う場合は、効力発生日の３０日前までに利用者に通知します。"),
     "faithful to the terms-change article, not the cancellation article; 三十日 = ３０日")])
A("supported_but_wrong", "ja", "出張中の食事代はいくらまで出ますか。", [(E, 9)], [
    ("１０日を超える出張では、見積費用の７０％まで前払いを申請できます。", True,
     (E, 9, "An employee travelling for more than ten days may request an advance of up to 70 percent of the "
            "estimated costs."), "cross-language; faithful to the advance rule, not the meal allowance"),
    ("前払い分は、出張後に提出する経費から差し引かれます。", True,
     (E, 9, "The advance is deducted from the claims filed after the trip."), "cross-language")])
A("supported_but_wrong", "ja", "病気で休む場合、何日前までに申請が必要ですか。", [(O, 7)], [
    ("３日以上続けて休む場合は、２週間前までに勤怠システムで申請してください。", True,
     (O, 7, "３日以上続けて休む場合は、２週間前までに申請してください。"),
     "faithful to the planned-leave rule (勤怠システム is on the same page), not sick leave")])
A("supported_but_wrong", "ja", "経費精算は誰が承認しますか。", [(U, 5)], [
    ("購入金額が１０万円未満であれば、所属長が承認します。", True,
     (U, 5, "購入金額が１０万円未満の場合は所属長が承認する。"), "faithful to the purchase policy, not expenses"),
    ("１００万円以上の場合は、担当役員の承認が必要です。", True,
     (U, 5, "１００万円以上の場合は担当役員の承認を必要とする。"), "purchase policy")])
A("supported_but_wrong", "ja", "Lumo X2のエラーE2は何を意味しますか。", [(F, 9)], [
    ("E4のエラーは、電源が不安定なときに表示されます。", True, (F, 9, "Q17 E4というエラーが表示されます 電源が不安定なときに表示されます。"),
     "faithful to the E4 answer (subject from the page's question Q17); the question asks about E2"),
    ("C線の接続を確認するか、別売りの電源アダプターを使ってください。", True,
     (F, 9, "C線の接続を確認するか、別売りの電源アダプターを使ってください。"), "page's words")])


def build(out_dir, with_labels):
    import json
    from pathlib import Path
    out = Path(out_dir)
    answers, labels, answer_labels = [], [], []
    for n, r in enumerate(ROWS, 1):
        aid = f"k{n:03d}"
        sep = " " if r["lang"] == "en" else ""
        text = r["answer"] or sep.join(c[0] for c in r["claims"])
        claims = []
        for i, (claim, sup, span, note) in enumerate(r["claims"], 1):
            cid = f"{aid}.{i}"
            if claim not in text:
                print("claim lightly cut from its answer:", cid)
            claims.append({"claim_id": cid, "claim": claim})
            labels.append({"claim_id": cid, "supported": sup,
                           "span": None if span is None else {"doc_id": span[0], "page": span[1], "text": span[2]},
                           "note": note})
        sups = [c[1] for c in r["claims"]]
        answer_labels.append({"answer_id": aid, "answer_label": "supported" if all(sups) else
                              ("unsupported" if not any(sups) else "partial")})
        answers.append({"answer_id": aid, "language": r["lang"], "kind": r["kind"], "question": r["question"],
                        "answer": text, "context": [[d, p] for d, p in r["context"]], "claims": claims})
    with open(out / "answers.jsonl", "w", encoding="utf-8") as f:
        for a in answers:
            f.write(json.dumps(a, ensure_ascii=False) + "\n")
    if with_labels:
        with open(out / "labels_a.jsonl", "w", encoding="utf-8") as f:
            for row in labels + answer_labels:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    import sys
    from pathlib import Path
    if len(sys.argv) > 1:
        build(sys.argv[1], "--labels" in sys.argv)
    else:
        build(Path(__file__).resolve().parent, True)
