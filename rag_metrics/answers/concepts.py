"""Concepts a claim and a page may name with different words: a small bilingual vocabulary of workplace-policy, IT
and product words, read by the support judge as synonyms within a language and as translations across English and
Japanese (:func:`concepts`, :func:`concept_words`).

Each line of :data:`CONCEPTS` is one concept: English words (reduced to simplemma's lemmas when read) then, after
``|``, Japanese ones (reduced to SudachiPy's dictionary forms when a word is one morpheme). The vocabulary is general
-- the words of expense, travel, leave, IT-security, purchasing and product-manual policies -- and names no page's
sentence; a claim still needs its numbers and its polarity to agree with the span it is matched to.
"""

from __future__ import annotations

import re
import unicodedata

from rag_metrics.answers.claims import lemma_tokens

__all__ = ["CONCEPTS", "concepts", "concept_words"]


CONCEPTS = """
expense cost spending expenditure | 経費 費用 支出 出費
claim reimbursement reimburse reimbursable refund settle | 精算 払い戻し 立て替え
apply application request file submit submission lodge | 申請 提出 申し込み 申込 届け出 届出
approve approval approver authorize authorise sign-off sign | 承認 許可 了承 決裁 認める
reject refuse decline deny | 却下 拒否 不承認
manager supervisor boss | 上司 所属長 管理職
department division section unit | 部門 部署 課 部
head director executive officer | 部門長 役員 担当役員 取締役
employee staff worker personnel | 従業員 社員 職員
new newly joiner hire join | 新入 入社 新規
company firm organisation organization employer | 会社 当社 企業
user customer member subscriber | 利用者 ユーザー 顧客 会員
supplier vendor contractor partner client | 取引先 取り引き 業者 仕入先
deadline limit due | 期限 締め切り 締切 上限
within inside | 以内
least minimum minimal | 最低 以上 少なくとも
most maximum max cap longest | 最大 最長 上限 以下 まで
before prior advance ahead | 前 事前 までに
after following later | 後 以降
day date | 日 日付 日数
week | 週 週間
month monthly | 月 か月 月額
year annual yearly | 年 年次 年間
hour | 時間
minute | 分
time period duration term | 期間 時間
long length | 長い 長さ
immediately promptly instantly once | 直ちに 即座 すぐ 速やか
automatically automatic auto | 自動 自動的
always every each | 常に 毎 全て
night overnight | 夜間 深夜 夜
pay paid payment salary wage | 支払う 支払い 支給 給与 給料 有給 払う
money amount sum fee price charge | 金額 金 料金 代金 価格 代
fee-free free | 無料 無償
paid-plan premium subscription plan | 有料 プラン
receipt invoice bill | 領収書 レシート 請求書 請求
purchase buy bought order procurement | 購入 購買 発注 買う 調達
quote quotation estimate | 見積もり 見積
travel trip journey business-trip | 出張 旅行 移動
depart departure leave leaving | 出発
hotel accommodation lodging | ホテル 宿泊
flight fly plane air | 飛行機 航空 フライト
train rail railway | 電車 列車 鉄道
taxi cab | タクシー
meal food dinner lunch breakfast | 食事 会食 食費 朝食 夕食 昼食
alcohol drink drinks liquor | 酒 アルコール 飲酒
insurance insure cover coverage covered | 保険 補償 対象
warranty guarantee guaranteed cover covered | 保証
leave vacation holiday absence | 休暇 休み 休業
sick illness | 病気 傷病
marriage wedding marry | 結婚
bereavement funeral | 忌引
grant give award provide | 付与 与える 支給 提供
increase grow rise | 増える 増加 増す 上がる
decrease reduce fall | 減る 減少 下がる
service tenure seniority length | 勤続 年数
work job duty business | 勤務 仕事 業務 働く
home remote | 在宅 自宅 リモート テレワーク
office workplace | オフィス 事務所 職場
equipment device hardware | 機器 備品 端末 装置 デバイス
laptop notebook computer pc | パソコン ノート 端末 PC
phone smartphone mobile | 電話 携帯 スマートフォン スマホ
password passphrase | パスワード
code pin | コード 暗証
account login | アカウント ログイン
security secure | セキュリティー セキュリティ 安全
email mail e-mail message | メール 電子メール
phishing suspicious | フィッシング 不審
report notify inform tell | 報告 通知 連絡 知らせる 届ける
forward | 転送
colleague coworker co-worker | 同僚
button | ボタン
software application app program client | ソフト ソフトウェア アプリ アプリケーション クライアント
system portal tool platform | システム ポータル ツール
network wi-fi wifi internet | ネットワーク 無線 インターネット 回線
vpn | vpn
connect connection | 接続 つなぐ 繋ぐ
public | 公衆 公共
lock | ロック 施錠
screen display | 画面 スクリーン ディスプレー
lose lost loss missing | 紛失 無くす 失う
steal stolen theft | 盗難 盗む
hotline helpdesk help-desk support | ホットライン ヘルプデスク サポート
extension | 内線 延長
data information | データ 情報
store storage save keep | 保存 保管 格納
delete erase wipe remove | 削除 消去 消す
classification level class | 分類 区分 レベル
confidential restricted secret | 機密 秘密 社外秘
training course | 研修 講習 トレーニング
complete finish | 修了 完了 終える
change modify update amend | 変更 改定 更新
schedule regular regularly periodic periodically | 定期 スケジュール 定期的
expire expiry expiration valid validity | 失効 有効 期限切れ
cancel cancellation terminate termination | 解約 取り消し キャンセル 解除
contract agreement terms term condition | 契約 規約 約款 条件
notice notification | 通知 告知 通達
effect effective force | 効力 発効 効果
important significant major material | 重要 重大
refund return | 返金 返還 返品
fault defect failure malfunction damage | 故障 不具合 欠陥 損傷 破損
repair fix | 修理 修繕
replace replacement exchange | 交換 取り替え
wire wiring cable | 配線 ケーブル 電線
power electricity | 電源 電力 電気
adapter adaptor | アダプター
battery | 電池 バッテリー
error fault | エラー 異常
thermostat | サーモスタット
temperature | 温度
writing written paper document form | 書面 文書 用紙 様式 書類
sign signature | 署名 サイン
original | 原本 原紙
audit inspection check | 監査 点検 確認
finance accounting treasury | 財務 経理 会計
team group | チーム 班
exception exempt except exclude excluded exclusion | 例外 除く 除外
prohibit forbid ban | 禁止
require need necessary mandatory must required | 必要 必須 要する
may allow allowed permit permitted can | できる 可能 許可 認める
use usage utilise utilize | 使う 使用 利用
send deliver submit | 送付 送る 送信 提出
ask request | 依頼 求める 頼む
receive get obtain | 受け取る 受信 受領 取得 得る
rule policy regulation | 規程 規定 規則 方針 ポリシー
manual guide handbook | マニュアル 手引き ガイド
private personal | 私的 個人 プライベート
extend extension prolong | 延長 延ばす
spend spent | 使う 支出 費やす
incur | 発生
book booking reservation reserve | 予約
car vehicle rental | 車 レンタカー 自動車
stay | 滞在 泊まる
incident accident | インシデント 事故
print printer | 印刷 プリンター
share | 共有
install installation mount | 設置 取り付け 取り付ける 設置する
card | カード
visa | ビザ 査証
fare ticket | 運賃 乗車券 券 チケット
choose select selection | 選ぶ 選択
include including | 含む 含める
start begin commence | 開始 始める 始まる
access | アクセス
currency exchange | 通貨 為替
attach attachment | 添付
transport transportation | 交通 移動
limit limited restrict restricted | 限る 限定 制限
destination | 目的地 行き先 出張先
seat | 席 座席
traveller traveler | 出張者
family spouse relative | 家族 配偶者 親族
allowance per-diem | 手当 日当
emergency urgent | 緊急
mistake error wrong | ミス 誤り 間違い
accept | 受け付ける 受け付け 受け入れる 受理
create make | 作成 作る
address recipient | 住所 宛先
enter input | 入力
scan | スキャン
backup | バックアップ
restart reboot | 再起動
press push | 押す
restore reset factory | 復元 初期化 リセット
register registration | 登録
manage management administer | 管理
method way procedure | 方法 手続き 手順
responsibility liable liability responsible | 責任
suspend suspension stop | 停止 中止
court jurisdiction | 裁判 裁判所 管轄
visitor guest | 来客 訪問者 来訪者
entry entrance | 入館 入室
morning | 午前
afternoon | 午後
hr human-resources personnel | 人事
mentor | メンター
goods item product article | 物品 製品 品 商品
delivery deliver | 納品 納期 配送
bank | 銀行
parking park | 駐車 駐車場
meeting | 会議 打ち合わせ
question inquiry | 質問 問い合わせ
outage failure | 障害
law legal regulation | 法令 法律
history log | 履歴 ログ
budget | 予算
quantity | 数量
inspection acceptance | 検収 検査
prepay prepayment advance | 前払い
daily | 毎日 日次
first initial | 最初 初日 初回
interview | 面談 面接
scope range | 範囲
arrange arrangement | 手配
compensation compensate liability | 賠償 補償
verify verification confirm | 確認 検証
certificate certification | 証明書 証明 資格
quality | 品質
review screening examine | 審査
""".strip()
"""Concepts a claim and a page may name with different words: one line per concept, English words (lemmas) then,
after ``|``, Japanese ones. General vocabulary of workplace policies, IT rules and product manuals (no entry names
one page's sentence), read by the support judge as synonyms within a language and as translations across them."""

_CONCEPT_IDS: dict | None = None


def concepts(word: str) -> frozenset:
    """The concepts of :data:`CONCEPTS` a word belongs to (its English lemma or Japanese dictionary form, as
    :func:`lemma_tokens` gives it), empty when none.

    >>> bool(concepts("submit") & concepts("申請")), bool(concepts("submit") & concepts("alcohol"))
    (True, False)
    """
    global _CONCEPT_IDS
    if _CONCEPT_IDS is None:
        table: dict = {}
        for i, line in enumerate(CONCEPTS.splitlines()):
            en, _, ja = line.partition("|")
            for w in en.split():
                for form in {w, *(lemma_tokens(w.replace("-", " ")) or [])}:
                    table.setdefault(form, set()).add(i)
            for w in ja.split():
                forms = lemma_tokens(w)
                for form in {unicodedata.normalize("NFKC", w).casefold(), *(forms if len(forms) == 1 else ())}:
                    table.setdefault(form, set()).add(i)
        _CONCEPT_IDS = {w: frozenset(ids) for w, ids in table.items()}
    return _CONCEPT_IDS.get(word, frozenset())


_WORD = re.compile(r"[a-z][a-z0-9]*(?:'[a-z]+)?")


def concept_words(text: str) -> frozenset:
    """The concepts a text names (:func:`concepts` of its :func:`lemma_tokens` and of its English stop words, which
    carry concepts too: "within", "before", "must")."""
    words = set(lemma_tokens(text)) | set(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))
    return frozenset().union(*(concepts(w) for w in words)) if words else frozenset()
